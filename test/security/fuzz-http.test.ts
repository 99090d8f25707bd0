// Pins, by property-based fuzzing against a listening server, that no run, session or control
// body (cancel, permission answer) yields a 5xx, stops the process or stalls the event loop
// over a second; the case count is asserted so the figure in docs/security.md stays true.
import fc from 'fast-check'
import { describe, it } from 'vitest'
import { anyJson, deepJson, FUZZ_TEST_TIMEOUT_MS, startFuzzServer, TOOL_NAMES } from './fuzz-server.js'

const toolUse = fc.record(
  {
    type: fc.constantFrom('tool_use', 'text', 'tool_result'),
    id: fc.oneof(fc.string({ maxLength: 8 }), fc.constant('toolu_1'), fc.integer()),
    name: fc.oneof(fc.constantFrom(...TOOL_NAMES), fc.string({ maxLength: 12 })),
    input: fc.oneof(
      anyJson,
      fc.record({ text: fc.string() }),
      fc.record({ file_path: fc.string(), pattern: fc.string(), path: fc.string() }, { requiredKeys: [] }),
    ),
  },
  { requiredKeys: ['type', 'id', 'name'] },
)

const runOptions = {
  wait: fc.oneof(fc.constant(true), fc.constant(true), anyJson),
  max_concurrency: fc.oneof(fc.integer({ min: -5, max: 50 }), anyJson),
  timeout_ms: fc.oneof(fc.integer({ min: 1, max: 2000 }), anyJson),
  call_timeout_ms: fc.integer({ min: -1, max: 2000 }),
  cancel_on_error: fc.oneof(fc.constantFrom('bash', 'any', 'none'), fc.string()),
  max_result_chars: fc.oneof(fc.integer({ min: 1, max: 10_000_000 }), fc.double()),
  permission_timeout_ms: fc.integer({ min: -1, max: 100 }),
  session_id: fc.string({ maxLength: 40 }),
}

const runBody = fc.oneof(
  fc.record({ tool_uses: fc.array(toolUse, { maxLength: 4 }), ...runOptions }, { requiredKeys: ['tool_uses'] }),
  fc.record(
    {
      message: fc.record(
        {
          role: fc.constantFrom('assistant', 'user'),
          content: fc.array(toolUse, { maxLength: 4 }),
          stop_reason: fc.constantFrom('tool_use', 'max_tokens', null),
        },
        { requiredKeys: ['role', 'content'] },
      ),
      ...runOptions,
    },
    { requiredKeys: ['message'] },
  ),
  anyJson,
)

const rule = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc
    .tuple(fc.constantFrom(...TOOL_NAMES, 'mcp__x', 'mcp__x__*'), fc.stringMatching(/^[a-z *\\():/.]{0,30}$/))
    .map(([name, content]) => `${name}(${content})`),
)

const sessionBody = fc.oneof(
  fc.record(
    {
      cwd: fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('.', '..', '/', '/etc', 'a/../..', '\u0000')),
      permission_mode: fc.oneof(
        fc.constantFrom('default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk'),
        fc.string(),
      ),
      permissions: fc.record(
        { allow: fc.array(rule, { maxLength: 4 }), deny: fc.array(rule, { maxLength: 4 }), ask: fc.array(rule) },
        { requiredKeys: [] },
      ),
      additional_directories: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
    },
    { requiredKeys: [] },
  ),
  anyJson,
)

const controlBody = fc.oneof(
  fc.record(
    {
      mode: fc.oneof(fc.constantFrom('cancel', 'interrupt'), fc.string()),
      decision: fc.oneof(fc.constantFrom('allow', 'deny'), fc.string()),
      updated_input: anyJson,
      message: fc.oneof(fc.string(), anyJson),
    },
    { requiredKeys: [] },
  ),
  anyJson,
)

/** The body as sent: usually JSON of the generated value, sometimes deep or broken text. */
const asText = (body: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 8, arbitrary: body.map((value) => JSON.stringify(value) ?? '') },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  )

describe('fuzzing the HTTP bodies', () => {
  it('answers run, session and control bodies without a 5xx or a stall', {
    timeout: FUZZ_TEST_TIMEOUT_MS,
  }, async () => {
    const fuzz = await startFuzzServer()
    const started = await fuzz.request(
      'POST',
      '/v1/runs',
      JSON.stringify({
        wait: false,
        tool_uses: [{ type: 'tool_use', id: 't', name: 'Write', input: { file_path: 'a', content: 'b' } }],
      }),
    )
    const runId = (JSON.parse(started.text) as { run_id: string }).run_id
    // Each property gets its share of the file's budget, in proportion to its cases.
    const limits = (numRuns: number) => ({ numRuns })

    await fc.assert(
      fc.asyncProperty(asText(runBody), async (body) => {
        fuzz.tally.cases++
        await fuzz.request('POST', '/v1/runs', body)
      }),
      limits(2500),
    )
    await fc.assert(
      fc.asyncProperty(asText(sessionBody), async (body) => {
        fuzz.tally.cases++
        await fuzz.request('POST', '/v1/sessions', body)
      }),
      limits(1500),
    )
    await fc.assert(
      fc.asyncProperty(asText(controlBody), fc.boolean(), fc.string({ maxLength: 12 }), async (body, cancel, id) => {
        fuzz.tally.cases++
        const run = id === '' ? runId : encodeURIComponent(id)
        const url = cancel ? `/v1/runs/${run}/cancel` : `/v1/runs/${runId}/permissions/${encodeURIComponent(id) || 'r'}`
        await fuzz.request('POST', url, body)
      }),
      limits(1500),
    )
    await fuzz.finish(5500)
  })
})
