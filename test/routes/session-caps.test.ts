// Pins the caps on open sessions (docs/adr/0234-session-caps.md): past the per-tenant or the
// instance cap, POST /v1/sessions and an /mcp initialize are refused with 429, Retry-After and the
// limit named, another tenant is not refused by one tenant's cap, a deleted session frees its
// place; a session's rules over TOOLEXEC_MAX_SESSION_RULE_BYTES are a 400; the counts are in /metrics.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'

const KEYS = 'acme:acme-key,globex:globex-key'

function createSession(baseUrl: string, key: string, body: unknown = {}) {
  return fetch(`${baseUrl}/v1/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  })
}

describe('session caps', () => {
  it("refuses a tenant's sessions past its cap with 429, not another tenant's, and frees a place on delete", async () => {
    const { baseUrl } = await startTestServer({
      env: {
        TOOLEXEC_API_KEYS: KEYS,
        TOOLEXEC_SANDBOX: 'off',
        TOOLEXEC_MAX_SESSIONS_PER_TENANT: '3',
        TOOLEXEC_MAX_SESSIONS: '5',
      },
    })
    const ids: string[] = []
    for (let index = 0; index < 3; index++) {
      const created = await createSession(baseUrl, 'acme-key')
      expect(created.status).toBe(201)
      ids.push(((await created.json()) as { session_id: string }).session_id)
    }
    const refused = await createSession(baseUrl, 'acme-key')
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(await refused.json()).toMatchObject({
      code: 'too_many_sessions',
      detail: expect.stringContaining('TOOLEXEC_MAX_SESSIONS_PER_TENANT=3'),
    })
    expect((await createSession(baseUrl, 'globex-key')).status).toBe(201)
    expect((await createSession(baseUrl, 'globex-key')).status).toBe(201)
    // Five open in all: the instance cap refuses globex too.
    const full = await createSession(baseUrl, 'globex-key')
    expect(((await full.json()) as { detail: string }).detail).toContain('TOOLEXEC_MAX_SESSIONS=5')
    const deleted = await fetch(`${baseUrl}/v1/sessions/${ids[0]}`, {
      method: 'DELETE',
      headers: { authorization: 'Bearer acme-key' },
    })
    expect(deleted.status).toBe(204)
    expect((await createSession(baseUrl, 'acme-key')).status).toBe(201)
    const metrics = await (await fetch(`${baseUrl}/metrics`, { headers: { authorization: 'Bearer acme-key' } })).text()
    expect(metrics).toMatch(/^toolexec_sessions_open 5$/m)
  })

  it('refuses a session whose rules are over the byte limit, naming it', async () => {
    const { baseUrl } = await startTestServer({ env: { TOOLEXEC_MAX_SESSION_RULE_BYTES: '100' } })
    const rules = Array.from({ length: 10 }, (_, index) => `Bash(npm run task-${index})`)
    const response = await fetch(`${baseUrl}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ permissions: { allow: rules } }),
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toMatchObject({
      code: 'session_rules_too_large',
      detail: expect.stringContaining('TOOLEXEC_MAX_SESSION_RULE_BYTES'),
    })
    const fits = await fetch(`${baseUrl}/v1/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ permissions: { allow: rules.slice(0, 2) } }),
    })
    expect(fits.status).toBe(201)
  })

  it('refuses an /mcp initialize past the MCP session cap with 429 and Retry-After', async () => {
    const { baseUrl } = await startTestServer({ env: { TOOLEXEC_MAX_MCP_SESSIONS_PER_TENANT: '2' } })
    const clients: Client[] = []
    for (let index = 0; index < 2; index++) {
      const client = new Client({ name: `cap-${index}`, version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`)))
      clients.push(client)
    }
    const initialize = await fetch(`${baseUrl}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'third', version: '1' } },
      }),
    })
    expect(initialize.status).toBe(429)
    expect(initialize.headers.get('retry-after')).toBe('5')
    expect(((await initialize.json()) as { error: { message: string } }).error.message).toContain(
      'TOOLEXEC_MAX_MCP_SESSIONS_PER_TENANT=2',
    )
    expect(await (await fetch(`${baseUrl}/metrics`)).text()).toMatch(/^toolexec_mcp_sessions_open 2$/m)
    await Promise.all(clients.map((client) => client.close()))
  })
})
