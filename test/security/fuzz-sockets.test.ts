// Pins, by property-based fuzzing against a listening server, that no frame on either WebSocket
// (/v1/runs/{id}/events, /v1/stream) and no raw Messages stream event yields an internal_error
// frame, a 1011 close, a stopped process or an event-loop stall over a second.
import fc from 'fast-check'
import { describe, it } from 'vitest'
import { connect } from '../helpers/ws-client.js'
import { anyJson, deepJson, FUZZ_TEST_TIMEOUT_MS, type FuzzServer, startFuzzServer, TOOL_NAMES } from './fuzz-server.js'

/** Not JSON, so every socket answers it with an `invalid_frame` error: a marker that all before it was handled. */
const SYNC = 'sync'

/** Sends the frames and the marker, waits for the marker's answer (or a close), and checks the answers. */
async function sendFrames(fuzz: FuzzServer, url: string, frames: readonly string[]) {
  fuzz.tally.cases++
  const client = connect(url)
  await client.opened
  for (const frame of frames) client.send(frame)
  client.send(SYNC)
  const marker = (frame: { type: string; message?: unknown }) =>
    frame.type === 'error' && frame.message === 'A frame must be one JSON object'
  const outcome = await Promise.race([client.until(marker).then(() => undefined), client.closed])
  client.socket.close()
  const internal = client.received.filter((frame) => frame.type === 'error' && frame.code === 'internal_error')
  if (internal.length > 0 || outcome?.code === 1011) {
    fuzz.tally.serverErrors.push(
      `${url} ${JSON.stringify(frames).slice(0, 300)} → ${JSON.stringify(internal)} ${outcome?.code}`,
    )
  }
}

const toolUseBlock = fc.record({
  type: fc.constant('tool_use'),
  id: fc.oneof(fc.constantFrom('toolu_1', 'toolu_2'), fc.string({ maxLength: 6 })),
  name: fc.oneof(fc.constantFrom(...TOOL_NAMES), fc.string({ maxLength: 8 })),
  input: fc.oneof(anyJson, fc.record({ text: fc.string() })),
})

const controlFrame = fc.oneof(
  fc.record(
    {
      type: fc.constantFrom('permission.response', 'run.cancel'),
      request_id: fc.string({ maxLength: 8 }),
      decision: fc.oneof(fc.constantFrom('allow', 'deny'), anyJson),
      updated_input: anyJson,
      message: fc.string(),
      mode: fc.oneof(fc.constantFrom('cancel', 'interrupt'), anyJson),
    },
    { requiredKeys: ['type'] },
  ),
  anyJson,
)

const streamFrame = fc.oneof(
  fc.record(
    {
      type: fc.constant('run.start'),
      session_id: fc.string({ maxLength: 8 }),
      max_concurrency: fc.integer({ min: -1, max: 20 }),
      max_result_chars: fc.integer({ min: 1, max: 10_000_000 }),
      cancel_on_error: fc.string(),
    },
    { requiredKeys: ['type'] },
  ),
  fc.record({ type: fc.constant('tool_use'), tool_use: fc.oneof(toolUseBlock, anyJson) }),
  fc.constantFrom({ type: 'input.end' }, { type: 'run.cancel' }, { type: 'message_stop' }),
  controlFrame,
)

const index = fc.integer({ min: -1, max: 3 })
const messagesEvent = fc.oneof(
  fc.record({ type: fc.constant('message_start'), message: anyJson }),
  fc.record({ type: fc.constant('content_block_start'), index, content_block: fc.oneof(toolUseBlock, anyJson) }),
  fc.record({
    type: fc.constant('content_block_delta'),
    index,
    delta: fc.record({
      type: fc.constantFrom('input_json_delta', 'text_delta'),
      partial_json: fc.oneof(fc.string(), deepJson, fc.constantFrom('{"text":', '"hi"}', '{', '}')),
    }),
  }),
  fc.record({ type: fc.constant('content_block_stop'), index }),
  fc.record({
    type: fc.constant('message_delta'),
    delta: fc.record({ stop_reason: fc.constantFrom('tool_use', 'max_tokens', 'end_turn', null) }),
  }),
  fc.constantFrom({ type: 'message_stop' }, { type: 'error', error: {} }, { type: 'ping' }),
)

/** Mostly JSON of the generated frame; sometimes deep or broken text. */
const asText = (frame: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 8, arbitrary: frame.map((value) => JSON.stringify(value) ?? 'null') },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  )

describe('fuzzing the WebSocket frames', () => {
  it('answers every frame on both sockets without an internal error or a stall', {
    timeout: FUZZ_TEST_TIMEOUT_MS,
  }, async () => {
    const fuzz = await startFuzzServer()
    const { wsUrl } = fuzz.server
    const limits = (numRuns: number) => ({ numRuns })

    await fc.assert(
      fc.asyncProperty(fc.array(asText(controlFrame), { minLength: 1, maxLength: 4 }), async (frames) => {
        // A run that waits on a permission ask, so the socket has someone to answer and cancel.
        const started = await fuzz.request(
          'POST',
          '/v1/runs',
          JSON.stringify({
            wait: false,
            permission_timeout_ms: 5000,
            tool_uses: [{ type: 'tool_use', id: 't', name: 'Write', input: { file_path: 'a', content: 'b' } }],
          }),
        )
        const runId = (JSON.parse(started.text) as { run_id: string }).run_id
        await sendFrames(fuzz, `${wsUrl}/v1/runs/${runId}/events`, frames)
        await fuzz.request('POST', `/v1/runs/${runId}/cancel`)
      }),
      limits(1000),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(asText(streamFrame), { minLength: 1, maxLength: 5 }), async (frames) => {
        await sendFrames(fuzz, `${wsUrl}/v1/stream`, [JSON.stringify({ type: 'run.start' }), ...frames])
      }),
      limits(1000),
    )
    await fc.assert(
      fc.asyncProperty(fc.array(asText(messagesEvent), { minLength: 1, maxLength: 8 }), async (events) => {
        await sendFrames(fuzz, `${wsUrl}/v1/stream`, [JSON.stringify({ type: 'run.start' }), ...events])
      }),
      limits(1000),
    )
    await fuzz.finish(3000)
  })
})
