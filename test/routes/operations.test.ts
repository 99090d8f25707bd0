// Pins the operational routes and the tool pool: /healthz, /readyz (every directory written), /metrics, /v1/tools, /v1/blobs,
// request ids and unknown routes as problem+json.
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { createTestTools } from '../helpers/test-tools.js'
import { injectSocket } from '../helpers/ws-client.js'

describe('operations', () => {
  it('answers health and readiness probes', async () => {
    const { app } = await buildTestApp()
    expect((await app.inject({ url: '/healthz' })).json()).toEqual({ status: 'ok' })
    expect((await app.inject({ url: '/readyz' })).json()).toEqual({
      status: 'ready',
      mcp_servers: [],
      blob_storage: { writable: true, write_failures: 0 },
      directories: { workspace: { writable: true }, memory: { writable: true } },
      runs: { executing: 0, asks_waiting: 0, oldest_ask_age_ms: 0, stuck: [] },
      audit: { store: { ok: true, written: 0, dropped: 0 } },
      bash_containment: expect.stringMatching(/^(pid-namespace|process-group)$/),
      processes: expect.objectContaining({ nice: expect.any(Number), max_starting: expect.any(Number) }),
      // The test app runs without a sandbox: no warm sandboxes (docs/adr/0390-warm-sandboxes.md).
      warm_sandboxes: expect.objectContaining({ per_session: 0, ready: 0, starting: 0 }),
    })
  })

  it('is not ready while the memory directory takes no writes, and says why without a host path', async () => {
    const { app, root } = await buildTestApp()
    // A file where the directory should be: refused for any user, root included.
    await writeFile(path.join(root, 'memory'), 'not a directory')
    const response = await app.inject({ url: '/readyz' })
    expect(response.statusCode).toBe(503)
    expect(response.json()).toMatchObject({
      status: 'directory_unwritable',
      directories: { workspace: { writable: true }, memory: { writable: false, error: 'EEXIST' } },
    })
    expect(response.body).not.toContain(root)
  })

  it('counts runs and calls by tool and outcome in /metrics', async () => {
    const tools = createTestTools()
    const { app } = await buildTestApp({ extraTools: tools.tools })
    await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: {
        tool_uses: [
          { type: 'tool_use', id: 'a', name: 'Echo', input: { text: 'a' } },
          { type: 'tool_use', id: 'b', name: 'Echo', input: { wrong: true } },
          { type: 'tool_use', id: 'c', name: 'made_up_by_a_client_42', input: {} },
        ],
      },
    })
    const response = await app.inject({ url: '/metrics' })
    // Names the service does not have never become label values (unbounded series otherwise).
    expect(response.body).not.toContain('made_up_by_a_client_42')
    expect(response.body).toContain('toolexec_tool_calls_total{tool="unknown",outcome="error"} 1')
    expect(response.headers['content-type']).toContain('text/plain')
    expect(response.body).toContain('toolexec_runs_total{status="completed"} 1')
    expect(response.body).toContain('toolexec_tool_calls_total{tool="Echo",outcome="success"} 1')
    expect(response.body).toContain('toolexec_tool_calls_total{tool="Echo",outcome="error"} 1')
    expect(response.body).toContain('toolexec_tool_call_duration_seconds_count{tool="Echo"} 2')
    expect(response.body).toContain('toolexec_tool_calls_queued 0')
    expect(response.body).toContain('toolexec_runs_active 0')
  })

  it('counts open event subscribers by transport', async () => {
    const tools = createTestTools()
    const { app } = await buildTestApp({ extraTools: tools.tools })
    const created = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { wait: false, tool_uses: [{ type: 'tool_use', id: 'g', name: 'Gate', input: { key: 'g' } }] },
    })
    const stream = await injectSocket(app, created.json().events_url)
    await stream.until((frame) => frame.type === 'tool.started')
    expect((await app.inject({ url: '/metrics' })).body).toContain(
      'toolexec_event_subscribers{transport="websocket"} 1',
    )
    tools.open('g')
    await stream.closed
  })

  it('lists the pool as API tool definitions, built-ins sorted by name, for a session too', async () => {
    const tools = createTestTools()
    const { app } = await buildTestApp({ extraTools: tools.tools })
    const { tools: definitions } = (await app.inject({ url: '/v1/tools' })).json()
    const names = definitions.map((definition: { name: string }) => definition.name)
    expect(names).toContain('Bash')
    expect(names).toContain('Echo')
    const echo = definitions.find((definition: { name: string }) => definition.name === 'Echo')
    expect(echo).toMatchObject({ description: 'Returns its text', input_schema: { type: 'object' } })
    const session = (
      await app.inject({ method: 'POST', url: '/v1/sessions', payload: { permissions: { deny: ['Bash'] } } })
    ).json()
    const scoped = (await app.inject({ url: `/v1/tools?session_id=${session.session_id}` })).json()
    expect(scoped.tools.map((definition: { name: string }) => definition.name)).not.toContain('Bash')
    expect((await app.inject({ url: '/v1/tools?session_id=ses_missing' })).statusCode).toBe(404)
  })

  it('leaves Bash out of the pool when several tenants share the service without a sandbox', async () => {
    const names = async (env: Record<string, string>) => {
      const { app } = await buildTestApp({ env: { TOOLEXEC_SANDBOX: 'off', ...env } })
      const response = await app.inject({ url: '/v1/tools', headers: { authorization: 'Bearer key-a' } })
      return response.json().tools.map((tool: { name: string }) => tool.name)
    }
    expect(await names({ TOOLEXEC_API_KEYS: 'acme:key-a,globex:key-b' })).not.toContain('Bash')
    expect(await names({ TOOLEXEC_API_KEYS: 'acme:key-a,acme:key-b' })).toContain('Bash')
  })

  it('applies the operator deny rules to the pool listed without a session', async () => {
    const { app } = await buildTestApp({ settings: { permissions: { deny: ['Write', 'Bash(rm:*)'] } } })
    const names = (await app.inject({ url: '/v1/tools' })).json().tools.map((tool: { name: string }) => tool.name)
    expect(names).not.toContain('Write')
    expect(names).toContain('Bash')
  })

  it('serves a blob with its type and 404s ids that are not plain names', async () => {
    const tools = createTestTools()
    const { app } = await buildTestApp({ extraTools: tools.tools })
    const run = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { tool_uses: [{ type: 'tool_use', id: 'big', name: 'Echo', input: { text: 'y'.repeat(51_000) } }] },
    })
    const [blob] = run.json().blobs
    const response = await app.inject({ url: blob.url })
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8')
    expect(response.body.length).toBe(51_000)
    expect(run.json().results[0].content).toContain('<persisted-output>')
    for (const id of ['..%2F..%2Fetc%2Fpasswd', 'missing.txt', '.hidden.txt']) {
      const missing = await app.inject({ url: `/v1/blobs/${id}` })
      expect(missing.statusCode).toBe(404)
      expect(missing.json().code).toBe('blob_not_found')
    }
  })

  it('echoes x-request-id and answers unknown routes with problem+json', async () => {
    const { app } = await buildTestApp()
    const response = await app.inject({ url: '/v2/nothing', headers: { 'x-request-id': 'req-123' } })
    expect(response.statusCode).toBe(404)
    expect(response.headers['x-request-id']).toBe('req-123')
    expect(response.json()).toMatchObject({ code: 'route_not_found', status: 404 })
  })
})
