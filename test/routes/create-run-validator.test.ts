// Pins that the hand check of the common POST /v1/runs body accepts only what zod accepts and
// gives zod's value, key order included; everything else is left to zod (docs/adr/0430).
import { validatorCompiler } from 'fastify-type-provider-zod'
import { describe, expect, it } from 'vitest'
import { checkCommonRunBody, createRunValidatorCompiler } from '../../routes/v1/runs/create-run-validator.js'
import { CreateRunBodySchema, IdempotencyHeadersSchema } from '../../routes/v1/runs/run-schemas.js'

const block = (changes: Record<string, unknown> = {}) => ({
  type: 'tool_use',
  id: 'toolu_1',
  name: 'Read',
  input: { file_path: 'a' },
  ...changes,
})

const accepted: [string, unknown][] = [
  ['one block', { tool_uses: [block()] }],
  ['no blocks', { tool_uses: [] }],
  ['an empty body', {}],
  ['wait false and a session', { session_id: 's', wait: false, tool_uses: [block(), block({ id: 'toolu_2' })] }],
  ['extra block keys dropped', { tool_uses: [block({ cache_control: { type: 'ephemeral' } })] }],
  [
    'null, string and array inputs',
    { tool_uses: [block({ input: null }), block({ input: 'x' }), block({ input: [] })] },
  ],
  ['ids and names at the bound', { tool_uses: [block({ id: 'i'.repeat(256), name: 'n'.repeat(256) })] }],
]

const declined: [string, unknown][] = [
  ['an option', { tool_uses: [block()], max_concurrency: 2 }],
  ['a message', { message: { role: 'assistant', content: [] } }],
  ['an unknown key', { tool_uses: [], extra: 1 }],
  ['wait as a string', { wait: 'yes' }],
  ['an empty session id', { session_id: '' }],
  ['tool_uses not an array', { tool_uses: {} }],
  ['a block of another type', { tool_uses: [block({ type: 'text' })] }],
  ['a block without input', { tool_uses: [{ type: 'tool_use', id: 'a', name: 'b' }] }],
  ['an empty id', { tool_uses: [block({ id: '' })] }],
  ['a name past the bound', { tool_uses: [block({ name: 'n'.repeat(257) })] }],
  ['a block that is an array', { tool_uses: [[]] }],
  ['an array body', []],
  ['a null body', null],
]

describe('the common run body, checked by hand', () => {
  it.each(accepted)('gives what zod gives: %s', (_name, body) => {
    const zod = CreateRunBodySchema.parse(body)
    const value = checkCommonRunBody(body)
    expect(value).toEqual(zod)
    expect(JSON.stringify(value)).toBe(JSON.stringify(zod))
  })

  it.each(declined)('is left to zod: %s', (_name, body) => {
    expect(checkCommonRunBody(body)).toBeUndefined()
  })

  it('answers a declined body with zod’s own error', () => {
    const route = { schema: CreateRunBodySchema, method: 'POST', url: '/v1/runs', httpPart: 'body' }
    const body = { tool_uses: [block({ id: '' })] }
    expect(createRunValidatorCompiler(route)(body)).toEqual(validatorCompiler(route)(body))
  })

  it('gives headers without an Idempotency-Key the value zod gives, and zod the rest', () => {
    const route = { schema: IdempotencyHeadersSchema, method: 'POST', url: '/v1/runs', httpPart: 'headers' }
    const validate = createRunValidatorCompiler(route)
    const zod = validatorCompiler(route)
    for (const headers of [
      { host: 'h', 'content-type': 'application/json' },
      { 'idempotency-key': 'k' },
      { 'idempotency-key': '' },
    ]) {
      expect(validate(headers)).toEqual(zod(headers))
    }
  })
})
