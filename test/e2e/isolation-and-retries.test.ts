// Pins, over real HTTP: idempotent retries (two concurrent requests with one key execute once),
// tenant isolation (another tenant's run, events, session and blob are 404), and cancel mid-run.
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'
import { connect } from '../helpers/ws-client.js'

const KEYS = 'acme:acme-key,globex:globex-key'

async function setup() {
  const tools = createTestTools()
  const server = await startTestServer({ extraTools: tools.tools, env: { TOOLEXEC_API_KEYS: KEYS } })
  const call = (key: string, route: string, init: { method?: string; body?: unknown; headers?: object } = {}) =>
    fetch(`${server.baseUrl}${route}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: {
        authorization: `Bearer ${key}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    })
  return { ...server, tools, call }
}

describe('over real HTTP', () => {
  it('executes two concurrent requests with one Idempotency-Key once', async () => {
    const { tools, call } = await setup()
    const body = { tool_uses: [{ type: 'tool_use', id: 'e', name: 'Echo', input: { text: 'once' } }] }
    const headers = { 'idempotency-key': 'retry-1' }
    const responses = await Promise.all([
      call('acme-key', '/v1/runs', { body, headers }),
      call('acme-key', '/v1/runs', { body, headers }),
    ])
    const [first, second] = (await Promise.all(responses.map((response) => response.json()))) as Array<{
      run_id: string
    }>
    expect(responses.map((response) => response.status)).toEqual([200, 200])
    expect(second).toEqual(first)
    expect(tools.executions.echo).toBe(1)
    // The same key belongs to each tenant separately.
    const other = await call('globex-key', '/v1/runs', { body, headers })
    expect(((await other.json()) as { run_id: string }).run_id).not.toBe(first!.run_id)
  })

  it("hides one tenant's run, events, session and blob from another", async () => {
    const { call, wsUrl } = await setup()
    const session = (await (await call('acme-key', '/v1/sessions', { body: {} })).json()) as { session_id: string }
    const run = (await (
      await call('acme-key', '/v1/runs', {
        body: {
          session_id: session.session_id,
          tool_uses: [{ type: 'tool_use', id: 'big', name: 'Echo', input: { text: 'z'.repeat(55_000) } }],
        },
      })
    ).json()) as { run_id: string; blobs: Array<{ url: string }> }
    for (const route of [`/v1/runs/${run.run_id}`, `/v1/sessions/${session.session_id}`, run.blobs[0]!.url]) {
      const visible = await call('acme-key', route)
      expect(visible.status, route).toBe(200)
      await visible.arrayBuffer()
      const hidden = await call('globex-key', route)
      expect(hidden.status, route).toBe(404)
      expect(((await hidden.json()) as { code: string }).code).toMatch(/_not_found$/)
    }
    const events = connect(`${wsUrl}/v1/runs/${run.run_id}/events`, { authorization: 'Bearer globex-key' })
    await expect(events.opened).rejects.toThrow('HTTP 404')
    const anonymous = connect(`${wsUrl}/v1/runs/${run.run_id}/events`)
    await expect(anonymous.opened).rejects.toThrow('HTTP 401')
  })

  it('cancels a run mid-way with POST /cancel: finished calls keep their results', async () => {
    const { tools, call } = await setup()
    const created = await call('acme-key', '/v1/runs', {
      body: {
        wait: false,
        max_concurrency: 1,
        tool_uses: [
          { type: 'tool_use', id: 'done', name: 'Echo', input: { text: 'kept' } },
          { type: 'tool_use', id: 'running', name: 'Gate', input: { key: 'r' } },
          { type: 'tool_use', id: 'queued', name: 'Echo', input: { text: 'never' } },
        ],
      },
    })
    const { run_id } = (await created.json()) as { run_id: string }
    await tools.started('r')
    expect((await call('acme-key', `/v1/runs/${run_id}/cancel`, { body: { mode: 'cancel' } })).status).toBe(202)
    const finished = await call('acme-key', `/v1/runs/${run_id}/events`, { headers: { accept: 'text/event-stream' } })
    await finished.text()
    const run = (await (await call('acme-key', `/v1/runs/${run_id}`)).json()) as {
      status: string
      results: Array<{ tool_use_id: string; content: string; is_error?: boolean }>
    }
    expect(run.status).toBe('cancelled')
    expect(run.results.map((result) => [result.tool_use_id, result.is_error ?? false])).toEqual([
      ['done', false],
      ['running', true],
      ['queued', true],
    ])
    expect(run.results[0]!.content).toBe('kept')
    expect(tools.executions.echo).toBe(1)
  })
})
