// Pins the secrets end to end over real HTTP (docs/mcp.md#secrets): admin keys write and list
// names, never values; a real MCP server gets its `${secret:…}` header and an HTTP hook its
// header once written; a tenant's Bash sees neither the values nor TOOLEXEC_SECRET_KEY; and no
// value shows in any API answer (/v1/mcp/servers, /v1/audit, run results and events) or log line.
import { randomBytes } from 'node:crypto'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { startGuardedMcpServer } from '../helpers/guarded-mcp-server.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'

/** `${secret:NAME}` as the settings file spells it. */
const ref = (name: string) => `\${secret:${name}}`

const SECRET_KEY = randomBytes(32).toString('base64')
const MCP_TOKEN = `mcp-${randomBytes(12).toString('hex')}`
const HOOK_TOKEN = `hook-${randomBytes(12).toString('hex')}`
const HOOK_TOKEN_2 = `hook2-${randomBytes(12).toString('hex')}`
const VALUES = [SECRET_KEY, MCP_TOKEN, HOOK_TOKEN, HOOK_TOKEN_2]
const KEYS = 'ops=acme:admin:admin-key-123,bot=acme:runner:runner-key-123'

type Listener = { url: string; seen: string[]; close(): Promise<void> }

async function listen(
  handler: (request: import('node:http').IncomingMessage, response: import('node:http').ServerResponse) => void,
): Promise<{ port: number; http: HttpServer }> {
  const http = createServer(handler)
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  return { port: (http.address() as AddressInfo).port, http }
}

function closer(http: HttpServer) {
  return async () => {
    http.closeAllConnections()
    await new Promise((resolve) => http.close(resolve))
  }
}

/** An HTTP hook that records the header it was sent and has no opinion. */
async function startHookServer(): Promise<Listener> {
  const seen: string[] = []
  const { port, http } = await listen((request, response) => {
    seen.push(String(request.headers['x-hook-token']))
    request.resume()
    request.on('end', () => response.writeHead(200).end())
  })
  return { url: `http://127.0.0.1:${port}/hook`, seen, close: closer(http) }
}

describe('secrets in the service', () => {
  let server: TestServer
  let mcp: Listener
  let hook: Listener
  const lines: string[] = []
  const answers: string[] = []

  async function call(method: string, path: string, key: string, body?: unknown) {
    const response = await fetch(`${server.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    })
    const text = await response.text()
    answers.push(text)
    return { status: response.status, text, json: () => JSON.parse(text) }
  }

  async function mcpState() {
    return (await call('GET', '/v1/mcp/servers', 'runner-key-123')).json().servers[0]
  }

  beforeAll(async () => {
    mcp = await startGuardedMcpServer(MCP_TOKEN)
    hook = await startHookServer()
    // The service's own environment holds the key, as in production: commands must not inherit it.
    process.env.TOOLEXEC_SECRET_KEY = SECRET_KEY
    server = await startTestServer({
      lifetime: 'manual',
      env: { TOOLEXEC_API_KEYS: KEYS, TOOLEXEC_SECRET_KEY: SECRET_KEY, LOG_LEVEL: 'debug' },
      logStream: { write: (line) => lines.push(line) },
      settings: {
        permissions: { allow: ['Bash', 'mcp__remote'] },
        mcpServers: {
          remote: { type: 'http', url: mcp.url, headers: { Authorization: `Bearer ${ref('remote-token')}` } },
        },
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [{ type: 'http', url: hook.url, headers: { 'x-hook-token': `${ref('hook-token')}` } }],
            },
          ],
        },
      },
    })
  })

  afterAll(async () => {
    delete process.env.TOOLEXEC_SECRET_KEY
    await server?.close()
    await mcp?.close()
    await hook?.close()
  })

  it('shows a server whose secret is not stored as failed, naming the secret', async () => {
    let state = await mcpState()
    while (state.status === 'connecting') {
      await sleep(20)
      state = await mcpState()
    }
    expect(state).toMatchObject({
      status: 'failed',
      last_error: expect.stringContaining('secret "remote-token" is not stored'),
    })
    expect(mcp.seen).toEqual([])
  })

  it('lets admin keys write secrets and refuses others with a clear error', async () => {
    expect(
      (await call('PUT', '/v1/secrets/remote-token', 'runner-key-123', { value: MCP_TOKEN })).json(),
    ).toMatchObject({
      code: 'role_forbidden',
      detail: expect.stringContaining('manage secrets'),
    })
    expect((await call('PUT', '/v1/secrets/bad%20name', 'admin-key-123', { value: 'x' })).json()).toMatchObject({
      status: 400,
      code: 'invalid_secret_name',
    })
    expect((await call('PUT', '/v1/secrets/empty', 'admin-key-123', { value: '' })).status).toBe(400)
    expect((await call('PUT', '/v1/secrets/big', 'admin-key-123', { value: 'x'.repeat(200 * 1024) })).status).toBe(413)

    const created = await call('PUT', '/v1/secrets/remote-token', 'admin-key-123', { value: MCP_TOKEN })
    expect(created.status).toBe(201)
    expect(created.json()).toEqual({
      name: 'remote-token',
      created_at: expect.any(String),
      updated_at: expect.any(String),
      updated_by: 'ops',
    })
    expect((await call('PUT', '/v1/secrets/hook-token', 'admin-key-123', { value: HOOK_TOKEN_2 })).status).toBe(201)
    expect((await call('PUT', '/v1/secrets/hook-token', 'admin-key-123', { value: HOOK_TOKEN })).status).toBe(200)
    const listed = await call('GET', '/v1/secrets', 'admin-key-123')
    expect(listed.json().secrets.map((secret: { name: string }) => secret.name)).toEqual(['hook-token', 'remote-token'])
    expect((await call('GET', '/v1/secrets', 'runner-key-123')).status).toBe(403)
  })

  it('connects the server once its secret is written and sends the resolved headers', async () => {
    let state = await mcpState()
    while (state.status !== 'connected' && state.status !== 'failed') {
      await sleep(20)
      state = await mcpState()
    }
    expect(state.status).toBe('connected')
    const run = await call('POST', '/v1/runs', 'runner-key-123', {
      tool_uses: [
        { type: 'tool_use', id: 'toolu_mcp', name: 'mcp__remote__ping', input: {} },
        { type: 'tool_use', id: 'toolu_env', name: 'Bash', input: { command: 'env' } },
      ],
    })
    const { run_id, results } = run.json()
    expect(results[0]).toMatchObject({ tool_use_id: 'toolu_mcp', content: 'pong' })
    expect(results[1].is_error).toBeUndefined()
    const environment = String(results[1].content)
    expect(environment).toContain('PATH=')
    expect(environment).not.toContain('TOOLEXEC_SECRET_KEY')
    expect(new Set(mcp.seen)).toEqual(new Set([`Bearer ${MCP_TOKEN}`]))
    expect(hook.seen).toEqual([HOOK_TOKEN])
    await call('GET', `/v1/runs/${run_id}`, 'runner-key-123')
    const events = await fetch(`${server.baseUrl}/v1/runs/${run_id}/events`, {
      headers: { authorization: 'Bearer runner-key-123', accept: 'text/event-stream' },
    })
    const stream = await events.text()
    expect(stream).toContain('run.completed')
    answers.push(stream)
  })

  it('audits each change by name and key, and deletes', async () => {
    expect((await call('DELETE', '/v1/secrets/hook-token', 'admin-key-123')).status).toBe(204)
    expect((await call('DELETE', '/v1/secrets/hook-token', 'admin-key-123')).json().code).toBe('secret_not_found')
    let records: Array<{ secret: unknown }> = []
    while (records.length < 4) {
      records = (await call('GET', '/v1/audit?kind=secret', 'admin-key-123')).json().records
      if (records.length < 4) await sleep(20)
    }
    expect(records.map((record) => record.secret)).toEqual([
      { name: 'hook-token', action: 'deleted', key_name: 'ops' },
      { name: 'hook-token', action: 'updated', key_name: 'ops' },
      { name: 'hook-token', action: 'created', key_name: 'ops' },
      { name: 'remote-token', action: 'created', key_name: 'ops' },
    ])
  })

  it('never shows a value in an API answer or a log line, even one that logs it by mistake', async () => {
    server.app.log.warn({ detail: `upstream said ${MCP_TOKEN}`, nested: { v: HOOK_TOKEN } }, 'a careless line')
    await call('GET', '/v1/secrets', 'admin-key-123')
    for (const text of answers) for (const value of VALUES) expect(text).not.toContain(value)
    const log = lines.join('')
    for (const value of VALUES) expect(log).not.toContain(value)
    const careless = lines.map((line) => JSON.parse(line)).find((entry) => entry.msg === 'a careless line')
    expect(careless).toMatchObject({ detail: 'upstream said [redacted]', nested: { v: '[redacted]' } })
  })
})

describe('who manages secrets', () => {
  it('refuses admin keys of tenants not named in TOOLEXEC_SECRETS_ADMIN_TENANTS', async () => {
    const { app } = await buildTestApp({
      env: {
        TOOLEXEC_API_KEYS: 'ops=acme:admin:k-acme,them=globex:admin:k-globex',
        TOOLEXEC_SECRET_KEY: SECRET_KEY,
        TOOLEXEC_SECRETS_ADMIN_TENANTS: 'acme',
      },
    })
    const put = (key: string) =>
      app.inject({
        method: 'PUT',
        url: '/v1/secrets/x-token',
        headers: { authorization: `Bearer ${key}` },
        payload: { value: 'abcdef' },
      })
    const refused = await put('k-globex')
    expect(refused.statusCode).toBe(403)
    expect(refused.json().detail).toContain('TOOLEXEC_SECRETS_ADMIN_TENANTS')
    expect((await put('k-acme')).statusCode).toBe(201)
  })

  it('refuses secrets without a key: writes answer 503, references in settings stop the start', async () => {
    const { app } = await buildTestApp({})
    const put = await app.inject({ method: 'PUT', url: '/v1/secrets/x-token', payload: { value: 'abcdef' } })
    expect(put.json()).toMatchObject({ status: 503, code: 'secrets_not_configured' })
    await expect(
      buildTestApp({
        settings: { mcpServers: { s: { type: 'http', url: 'http://127.0.0.1:1/mcp', headers: { a: `${ref('t')}` } } } },
      }),
    ).rejects.toThrow(/TOOLEXEC_SECRET_KEY is not set/)
    await expect(
      buildTestApp({
        env: { TOOLEXEC_SECRET_KEY: SECRET_KEY },
        settings: { mcpServers: { s: { command: 'x', args: [`${ref('t')}`] } } },
      }),
    ).rejects.toThrow(/mcpServers\.s\.args\[0\]: \$\{secret:…\} may stand only/)
  })
})

describe.skipIf(redisSkipReason !== undefined)('secrets on Redis', () => {
  let redis: RedisServer
  beforeAll(async () => {
    redis = await startRedisServer()
  })
  afterAll(async () => {
    await redis?.stop()
  })

  it('shares one set of secrets between instances: a write on one brings up the servers of the other', async () => {
    const mcp = await startGuardedMcpServer(MCP_TOKEN)
    const env = { TOOLEXEC_REDIS_URL: redis.url, TOOLEXEC_SECRET_KEY: SECRET_KEY }
    const settings = {
      mcpServers: {
        remote: { type: 'http' as const, url: mcp.url, headers: { Authorization: `Bearer ${ref('remote-token')}` } },
      },
    }
    const first = await buildTestApp({ env, settings })
    const { workspace, blobDir, memoryDir } = first.app.config
    const second = await buildTestApp({
      env: { ...env, TOOLEXEC_WORKSPACE: workspace, TOOLEXEC_BLOB_DIR: blobDir, TOOLEXEC_MEMORY_DIR: memoryDir },
      settings,
    })
    const stateOn = async (app: typeof first.app) => {
      for (;;) {
        const [state] = app.mcpServers.states()
        if (state && (state.status === 'failed' || state.status === 'connected')) return state
        await sleep(20)
      }
    }
    expect((await stateOn(second.app)).status).toBe('failed')
    // No wait for the second instance's subscription: one written before it takes effect is
    // read back once it does (docs/adr/0581).

    const put = await first.app.inject({
      method: 'PUT',
      url: '/v1/secrets/remote-token',
      payload: { value: MCP_TOKEN },
    })
    expect(put.statusCode).toBe(201)
    // The second instance hears of the write through Redis and tries again.
    for (;;) {
      const [state] = second.app.mcpServers.states()
      if (state?.status === 'connected') break
      await sleep(20)
    }
    const listed = await second.app.inject({ url: '/v1/secrets' })
    expect(listed.json().secrets.map((secret: { name: string }) => secret.name)).toEqual(['remote-token'])
    expect(await second.app.secrets.resolve('remote-token')).toBe(MCP_TOKEN)
    const reader = new Redis(redis.url)
    const stored = await reader.hgetall('toolexec:secrets')
    reader.disconnect()
    expect(Object.keys(stored)).toEqual(['remote-token'])
    expect(JSON.stringify(stored)).not.toContain(MCP_TOKEN)
    await first.close()
    await second.close()
    await mcp.close()
  })
})
