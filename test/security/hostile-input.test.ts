// Pins the hostile-input defences on a listening server with real HTTP and WebSocket clients:
// deep JSON is refused before anything recursive sees it (400 / error frame naming
// TOOLEXEC_MAX_INPUT_DEPTH) and the server keeps answering; a backtracking-prone Bash rule is
// matched in well under a second; rule caps; a request cannot raise the operator's result budget.
import { describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'
import { connect } from '../helpers/ws-client.js'

/** `{"a":{"a":…1…}}`, `depth` objects deep: 2,000 levels is about 12 KB. */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`

const post = (server: TestServer, url: string, body: string) =>
  fetch(`${server.baseUrl}${url}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })

async function expectHealthy(server: TestServer) {
  const response = await fetch(`${server.baseUrl}/healthz`)
  expect(response.status).toBe(200)
}

describe('nesting depth', () => {
  it.each([2000, 5000])('refuses a tool input %i levels deep over HTTP with a 400 naming the limit', async (depth) => {
    const server = await startTestServer()
    const body = `{"tool_uses":[{"type":"tool_use","id":"toolu_1","name":"Read","input":${nested(depth)}}]}`
    const response = await post(server, '/v1/runs', body)
    expect(response.status).toBe(400)
    expect(response.headers.get('content-type')).toContain('application/problem+json')
    expect(await response.json()).toMatchObject({
      code: 'input_too_deep',
      detail: expect.stringContaining('TOOLEXEC_MAX_INPUT_DEPTH'),
    })
    await expectHealthy(server)
  })

  it('accepts an input just inside the limit and refuses one just past it', async () => {
    const server = await startTestServer({ env: { TOOLEXEC_MAX_INPUT_DEPTH: '10' } })
    // The body, tool_uses and the block are three levels of the ten; the input may have seven.
    const block = (depth: number) =>
      `{"tool_uses":[{"type":"tool_use","id":"toolu_1","name":"Read","input":${nested(depth)}}]}`
    expect((await post(server, '/v1/runs', block(7))).status).toBe(200)
    const refused = await post(server, '/v1/runs', block(8))
    expect(refused.status).toBe(400)
    expect(await refused.json()).toMatchObject({ detail: expect.stringContaining('deeper than 10 levels') })
  })

  it('answers a deep /v1/stream frame with an error frame and keeps the socket', async () => {
    const tools = createTestTools()
    const server = await startTestServer({ extraTools: tools.tools })
    const client = connect(`${server.wsUrl}/v1/stream`)
    await client.opened
    client.send({ type: 'run.start' })
    client.send(
      `{"type":"tool_use","tool_use":{"type":"tool_use","id":"toolu_1","name":"Echo","input":${nested(2000)}}}`,
    )
    const error = await client.until((frame) => frame.type === 'error')
    expect(error).toMatchObject({
      code: 'input_too_deep',
      message: expect.stringContaining('TOOLEXEC_MAX_INPUT_DEPTH'),
    })
    await expectHealthy(server)
    client.send({
      type: 'tool_use',
      tool_use: { type: 'tool_use', id: 'toolu_2', name: 'Echo', input: { text: 'up' } },
    })
    client.send({ type: 'input.end' })
    expect((await client.closed).code).toBe(1000)
    const results = client.received.filter((frame) => frame.type === 'tool.result').map((frame) => frame.result)
    expect(results).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'up' }])
  })

  it('refuses a deep input streamed as partial_json pieces with that block’s error result', async () => {
    const tools = createTestTools()
    const server = await startTestServer({ extraTools: tools.tools })
    const client = connect(`${server.wsUrl}/v1/stream`)
    await client.opened
    client.send({ type: 'run.start' })
    const start = { type: 'tool_use', id: 'toolu_1', name: 'Echo', input: {} }
    client.send({ type: 'content_block_start', index: 0, content_block: start })
    const json = nested(2000)
    for (let at = 0; at < json.length; at += 4000) {
      const piece = json.slice(at, at + 4000)
      client.send({ type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: piece } })
    }
    client.send({ type: 'content_block_stop', index: 0 })
    client.send({ type: 'message_stop' })
    expect((await client.closed).code).toBe(1000)
    const result = client.received.find((frame) => frame.type === 'tool.result')?.result
    expect(result).toMatchObject({ is_error: true, content: expect.stringContaining('TOOLEXEC_MAX_INPUT_DEPTH') })
    expect(tools.executions.echo).toBe(0)
    await expectHealthy(server)
  })

  it('answers a deep frame on /v1/runs/{id}/events with an error frame and keeps the socket', async () => {
    const tools = createTestTools()
    const server = await startTestServer({ extraTools: tools.tools })
    const started = await post(
      server,
      '/v1/runs',
      JSON.stringify({
        wait: false,
        tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Gate', input: { key: 'k' } }],
      }),
    )
    const { run_id: runId } = (await started.json()) as { run_id: string }
    const client = connect(`${server.wsUrl}/v1/runs/${runId}/events`)
    await client.opened
    client.send(`{"type":"permission.response","request_id":"r","decision":"allow","updated_input":${nested(2000)}}`)
    expect(await client.until((frame) => frame.type === 'error')).toMatchObject({ code: 'input_too_deep' })
    await expectHealthy(server)
    tools.open('k', 'done')
    await client.until((frame) => frame.type === 'run.completed')
  })
})

describe('permission rules', () => {
  it('matches a backtracking-prone Bash rule against a long command in well under a second', async () => {
    const server = await startTestServer()
    const created = await post(
      server,
      '/v1/sessions',
      JSON.stringify({ permissions: { allow: [`Bash(${'a*'.repeat(12)}b)`] } }),
    )
    expect(created.status).toBe(201)
    const { session_id: sessionId } = (await created.json()) as { session_id: string }
    const began = performance.now()
    const response = await post(
      server,
      '/v1/runs',
      JSON.stringify({
        session_id: sessionId,
        tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'a'.repeat(40) } }],
      }),
    )
    expect(response.status).toBe(200)
    // A backtracking matcher takes minutes here; 10 s leaves a loaded host its seconds (as fuzz-rules).
    expect(performance.now() - began).toBeLessThan(10_000)
    await expectHealthy(server)
  })

  it('refuses a rule with too many stars or too many characters', async () => {
    const server = await startTestServer()
    const stars = await post(
      server,
      '/v1/sessions',
      JSON.stringify({ permissions: { allow: [`Bash(${'a*'.repeat(33)})`] } }),
    )
    expect(stars.status).toBe(400)
    expect(await stars.json()).toMatchObject({ code: 'invalid_permission_rule', detail: expect.stringContaining('32') })
    const long = await post(
      server,
      '/v1/sessions',
      JSON.stringify({ permissions: { allow: [`Bash(${'a'.repeat(1000)})`] } }),
    )
    expect(long.status).toBe(400)
    expect(await long.json()).toMatchObject({ code: 'invalid_request' })
  })
})

describe('result budget', () => {
  it('clamps a request’s max_result_chars to TOOLEXEC_MAX_RESULT_CHARS', async () => {
    const tools = createTestTools()
    const server = await startTestServer({ extraTools: tools.tools, env: { TOOLEXEC_MAX_RESULT_CHARS: '1000' } })
    const response = await post(
      server,
      '/v1/runs',
      JSON.stringify({
        max_result_chars: 1_000_000,
        tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Echo', input: { text: 'x'.repeat(5000) } }],
      }),
    )
    const body = (await response.json()) as { results: Array<{ content: string }>; blobs: unknown[] }
    expect(body.results[0]?.content).toContain('<persisted-output>')
    expect(body.blobs).toHaveLength(1)
  })
})
