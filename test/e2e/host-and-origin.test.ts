// Pins the browser defence on a listening server (docs/security.md#web-pages-host-and-origin): a
// Host that is not a loopback name and an Origin neither the service's own nor on the allowlist
// are refused with a 403 problem on every route, /mcp and both WebSockets included; no Origin,
// the service's own and an allowed one pass.
import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'
import { connect } from '../helpers/ws-client.js'

const KEYS = 'acme:acme-key,globex:globex-key'
const ALLOWED = 'http://allowed.example'
const EVIL = 'http://evil.example'
const echo = { tool_uses: [{ type: 'tool_use', id: 'e', name: 'Bash', input: { command: 'true' } }] }
const mcpInitialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
}

type RawResponse = { status: number; body: string }

/** node:http, because fetch will not send a Host header of the caller's choosing. */
function raw(
  baseUrl: string,
  route: string,
  options: { method?: string; headers?: Record<string, string>; body?: unknown },
) {
  return new Promise<RawResponse>((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body)
    const outgoing = httpRequest(
      `${baseUrl}${route}`,
      {
        method: options.method ?? (payload === undefined ? 'GET' : 'POST'),
        headers: {
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
      },
      (response) => {
        let body = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (body += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      },
    )
    outgoing.on('error', reject)
    outgoing.end(payload)
  })
}

const problemCode = (response: RawResponse) => (JSON.parse(response.body) as { code: string }).code

async function setup(env: Record<string, string> = { TOOLEXEC_API_KEYS: KEYS }) {
  const logLines: string[] = []
  const server = await startTestServer({
    env: { TOOLEXEC_SANDBOX: 'auto', TOOLEXEC_ALLOWED_ORIGINS: ALLOWED, LOG_LEVEL: 'warn', ...env },
    logStream: { write: (line: string) => logLines.push(line) },
  })
  const auth: Record<string, string> = env.TOOLEXEC_API_KEYS ? { authorization: 'Bearer acme-key' } : {}
  const call = (route: string, options: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) =>
    raw(server.baseUrl, route, { ...options, headers: { ...auth, ...options.headers } })
  return { ...server, call, auth, logLines }
}

describe('Host and Origin over real HTTP and WebSockets', () => {
  it('refuses a Host that is not a loopback name, with a logged 403 problem', async () => {
    const { call, logLines } = await setup()
    for (const route of ['/v1/tools', '/healthz']) {
      const response = await call(route, { headers: { host: 'evil.example' } })
      expect(response.status, route).toBe(403)
      expect(problemCode(response)).toBe('host_forbidden')
    }
    const session = await call('/v1/sessions', { headers: { host: 'evil.example:8080' }, body: {} })
    expect(session.status).toBe(403)
    expect(logLines.some((line) => line.includes('host_forbidden') && line.includes('evil.example'))).toBe(true)
    expect((await call('/v1/tools', { headers: { host: 'localhost:1234' } })).status).toBe(200)
  })

  it('refuses a rebinding Host on the default (no keys, loopback) service', async () => {
    const { call } = await setup({})
    const session = await call('/v1/sessions', {
      headers: { host: 'rebound.evil.example' },
      body: { permission_mode: 'bypassPermissions' },
    })
    expect(session.status).toBe(403)
    expect(problemCode(session)).toBe('host_forbidden')
    const runs = await call('/v1/runs', { headers: { host: 'rebound.evil.example' }, body: echo })
    expect(runs.status).toBe(403)
  })

  it('refuses a foreign Origin on POST /v1/runs, POST /v1/sessions and /mcp', async () => {
    const { call, logLines } = await setup()
    const headers = { origin: EVIL }
    const attempts = [
      await call('/v1/runs', { headers, body: echo }),
      await call('/v1/sessions', { headers, body: {} }),
      await call('/mcp', {
        headers: { ...headers, accept: 'application/json, text/event-stream' },
        body: mcpInitialize,
      }),
      await call('/v1/runs', { headers: { origin: 'null' }, body: echo }),
    ]
    expect(attempts.map((response) => response.status)).toEqual([403, 403, 403, 403])
    expect(attempts.map(problemCode)).toEqual(Array(4).fill('origin_forbidden'))
    expect(logLines.some((line) => line.includes('origin_forbidden') && line.includes(EVIL))).toBe(true)
  })

  it('refuses both WebSocket upgrades from a foreign Origin', async () => {
    const { call, wsUrl, auth } = await setup()
    const created = await call('/v1/runs', { body: echo })
    const { run_id } = JSON.parse(created.body) as { run_id: string }
    for (const route of ['/v1/stream', `/v1/runs/${run_id}/events`]) {
      const socket = connect(`${wsUrl}${route}`, { ...auth, origin: EVIL })
      await expect(socket.opened, route).rejects.toThrow('HTTP 403')
    }
    const stream = connect(`${wsUrl}/v1/stream`, { ...auth, origin: ALLOWED })
    await stream.opened
    stream.socket.close()
    await stream.closed
  })

  it("passes the service's own pages on a default install: Try it out in /docs, and its WebSockets", async () => {
    const { call, baseUrl, wsUrl } = await setup({})
    const own = { origin: baseUrl }
    expect((await call('/v1/runs', { headers: own, body: echo })).status).toBe(200)
    expect((await call('/v1/sessions', { headers: own, body: {} })).status).toBe(201)
    const stream = connect(`${wsUrl}/v1/stream`, own)
    await stream.opened
    stream.socket.close()
    await stream.closed
    // The same machine on another port is another origin.
    const otherPort = baseUrl.replace(/:\d+$/, ':1')
    expect(problemCode(await call('/v1/runs', { headers: { origin: otherPort }, body: echo }))).toBe('origin_forbidden')
  })

  it('allows requests without an Origin and from an allowlisted one', async () => {
    const { call } = await setup()
    expect((await call('/v1/runs', { body: echo })).status).toBe(200)
    expect((await call('/v1/runs', { headers: { origin: ALLOWED }, body: echo })).status).toBe(200)
    const mcp = await call('/mcp', { headers: { accept: 'application/json, text/event-stream' }, body: mcpInitialize })
    expect(mcp.status).toBe(200)
  })
})
