// Pins that the hand-written 200 of POST /v1/runs is byte for byte what zod's serializer writes,
// and that whatever it does not recognise fails exactly as zod's does (docs/adr/0429).
import { serializerCompiler } from 'fastify-type-provider-zod'
import { describe, expect, it } from 'vitest'
import { runResultSerializer, runResultSerializerCompiler } from '../../routes/v1/runs/run-result-serializer.js'
import { RunResultSchema } from '../../routes/v1/runs/run-schemas.js'

const route = { schema: RunResultSchema, method: 'POST', url: '/v1/runs', httpStatus: '200' }
const zod = serializerCompiler(route)
const handWritten = runResultSerializer(zod)

const results = [
  { type: 'tool_result', tool_use_id: 'toolu_1', content: 'plain "quoted" \\ text\n\u2028 ünï 🙂 \u0001' },
  { type: 'tool_result', tool_use_id: 'toolu_2', content: 'failed', is_error: true },
  {
    type: 'tool_result',
    tool_use_id: 'toolu_3',
    content: [
      { type: 'text', text: 'a' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'tool_reference', tool_name: 'mcp__x__y' },
    ],
  },
  { type: 'tool_result', tool_use_id: 'toolu_4', content: [] },
]

const answer = (changes: Record<string, unknown> = {}) => ({
  run_id: 'run_1',
  status: 'completed',
  session_id: 'ses_1',
  results,
  message: { role: 'user', content: results },
  blobs: [{ tool_use_id: 'toolu_1', blob_id: 'blob_1', url: '/v1/blobs/blob_1', size: 12 }],
  ...changes,
})

const wellFormed: [string, unknown][] = [
  ['every kind of result block', answer()],
  ['no results and no blobs', answer({ results: [], message: { role: 'user', content: [] }, blobs: [] })],
  ['a shutdown cancel', answer({ status: 'cancelled', cancel_reason: 'shutdown' })],
  ['cancel_reason present but undefined', answer({ cancel_reason: undefined })],
  [
    'keys in another order, extra keys dropped',
    { extra: 1, ...answer({ blobs: [{ size: 0, url: 'u', blob_id: 'b', tool_use_id: 't', more: true }] }) },
  ],
  ['a message whose content is another array', answer({ message: { role: 'user', content: [results[1]], extra: 2 } })],
  ['extra fields on blocks and parts', answer({ results: [{ ...results[2], extra: 1, is_error: undefined }] })],
]

const malformed: [string, unknown][] = [
  ['an unknown status', answer({ status: 'done' })],
  ['another cancel reason', answer({ cancel_reason: 'client' })],
  ['is_error false', answer({ results: [{ ...results[0], is_error: false }] })],
  ['a number as content', answer({ results: [{ ...results[0], content: 3 }] })],
  ['an unknown part type', answer({ results: [{ ...results[0], content: [{ type: 'video' }] }] })],
  [
    'an image of another media type',
    answer({
      results: [
        { ...results[0], content: [{ type: 'image', source: { type: 'base64', media_type: 'image/tiff', data: '' } }] },
      ],
    }),
  ],
  ['a fractional blob size', answer({ blobs: [{ tool_use_id: 't', blob_id: 'b', url: 'u', size: 1.5 }] })],
  ['a message from the assistant', answer({ message: { role: 'assistant', content: [] } })],
  ['no session id', answer({ session_id: undefined })],
  ['not an object', 'text'],
]

describe('the hand-written run result', () => {
  it.each(wellFormed)('writes what zod writes: %s', (_name, data) => {
    expect(handWritten(data)).toBe(zod(data))
  })

  it.each(malformed)('fails as zod fails: %s', (_name, data) => {
    expect(() => zod(data)).toThrow()
    expect(() => handWritten(data)).toThrow(/Response doesn't match the schema/)
  })

  it('is the 200 only; every other status keeps zod', () => {
    const data = answer()
    expect(runResultSerializerCompiler(route)(data)).toBe(zod(data))
    // A 202 with the 200's body would be written by hand if the compiler did not look at the status.
    const accepted = runResultSerializerCompiler({ ...route, httpStatus: '202' })
    expect(accepted({ ...data, extra: 1 })).toBe(zod(data))
    expect(() => accepted(answer({ status: 'done' }))).toThrow(/Response doesn't match the schema/)
  })
})
