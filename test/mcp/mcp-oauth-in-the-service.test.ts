// The OAuth authorization-code flow end to end over real HTTP, on two instances sharing a real
// redis-server (docs/adr/0421-one-refresh-at-a-time.md, docs/adr/0423-authorization-state.md):
// both report `needs_authorization` in /v1/mcp/servers and /readyz; an admin key starts the flow
// on one instance, the browser lands on the other's callback, both connect on the one set of
// tokens; the tokens are sealed in Redis and listed nowhere; rotating refresh tokens are spent
// once each while both instances call the server; a replayed callback is refused.
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js'
import { freePort } from '../helpers/free-port.js'
import { startTestAuthorizationServer, type TestAuthorizationServer } from '../helpers/oauth-authorization-server.js'
import { openInBrowser } from '../helpers/oauth-browser.js'
import { type OAuthMcpServer, startOAuthMcpServer } from '../helpers/oauth-mcp-server.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import { findTool, runTool } from './mcp-test-helpers.js'

const ADMIN = 'admin-key-123'
const RUNNER = 'runner-key-123'
const auth = (key: string) => ({ authorization: `Bearer ${key}` })

describe.skipIf(redisSkipReason)('MCP OAuth in the service, on two instances', () => {
  let redis: RedisServer
  let as: TestAuthorizationServer
  let mcp: OAuthMcpServer
  let first: TestApp
  let second: TestApp
  let publicUrl: string
  const lines: string[] = []

  beforeAll(async () => {
    redis = await startRedisServer()
    const port = await freePort()
    publicUrl = `http://127.0.0.1:${port}`
    as = await startTestAuthorizationServer({
      resource: () => mcp.url,
      scopes: 'mcp:read',
      accessTokenTtl: 4,
      clients: [
        {
          client_id: 'console',
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          redirect_uris: [`${publicUrl}/v1/mcp/oauth/callback`],
          response_types: ['code'],
        },
      ],
    })
    mcp = await startOAuthMcpServer(as.issuer, ['mcp:read'])
    const env = {
      TOOLEXEC_REDIS_URL: redis.url,
      TOOLEXEC_SECRET_KEY: randomBytes(32).toString('base64'),
      TOOLEXEC_PUBLIC_URL: publicUrl,
      TOOLEXEC_API_KEYS: `ops=acme:admin:${ADMIN},bot=acme:runner:${RUNNER}`,
    }
    const settings = {
      mcpServers: {
        remote: {
          type: 'http' as const,
          url: mcp.url,
          oauth: { grant: 'authorization_code' as const, client_id: 'console', scope: 'mcp:read' },
        },
      },
    }
    first = await buildTestApp({
      env: { ...env, LOG_LEVEL: 'debug' },
      settings,
      lifetime: 'manual',
      logStream: { write: (line) => lines.push(line) },
    })
    await first.app.listen({ host: '127.0.0.1', port })
    const { workspace, blobDir, memoryDir } = first.app.config
    second = await buildTestApp({
      env: { ...env, TOOLEXEC_WORKSPACE: workspace, TOOLEXEC_BLOB_DIR: blobDir, TOOLEXEC_MEMORY_DIR: memoryDir },
      settings,
      lifetime: 'manual',
    })
  })

  afterAll(async () => {
    await second?.close()
    await first?.close()
    await mcp?.close()
    await as?.close()
    await redis?.stop()
  })

  async function settledStatus(app: TestApp['app']): Promise<string> {
    for (;;) {
      const status = app.mcpServers.states()[0]?.status
      if (status !== undefined && status !== 'connecting' && status !== 'reconnecting') return status
      await sleep(10)
    }
  }

  it('waits for an admin, is authorized once in a browser, and connects on both instances', async () => {
    expect(await settledStatus(first.app)).toBe('needs_authorization')
    expect(await settledStatus(second.app)).toBe('needs_authorization')
    const servers = await fetch(`${publicUrl}/v1/mcp/servers`, { headers: auth(RUNNER) })
    const [state] = ((await servers.json()) as { servers: { last_error: string }[] }).servers
    expect(state).toMatchObject({ name: 'remote', status: 'needs_authorization', tool_count: 0 })
    expect(state?.last_error).toContain('POST /v1/mcp/servers/remote/authorize')
    const ready = await fetch(`${publicUrl}/readyz`)
    expect(ready.status).toBe(200)
    expect(((await ready.json()) as { mcp_servers: unknown[] }).mcp_servers[0]).toMatchObject({
      status: 'needs_authorization',
    })

    const refused = await second.app.inject({
      method: 'POST',
      url: '/v1/mcp/servers/remote/authorize',
      headers: auth(RUNNER),
    })
    expect(refused.statusCode).toBe(403)
    const unknown = await second.app.inject({
      method: 'POST',
      url: '/v1/mcp/servers/nope/authorize',
      headers: auth(ADMIN),
    })
    expect(unknown.json()).toMatchObject({ status: 404, code: 'mcp_server_not_found' })

    const started = await second.app.inject({
      method: 'POST',
      url: '/v1/mcp/servers/remote/authorize',
      headers: auth(ADMIN),
    })
    expect(started.statusCode).toBe(200)
    const { authorization_url } = started.json() as { authorization_url: string }
    expect(authorization_url.startsWith(`${as.issuer}/auth?`)).toBe(true)

    // The browser ends on the first instance's callback: the pending authorization is in Redis.
    const { url: landing, response } = await openInBrowser(authorization_url)
    expect(landing.href.startsWith(`${publicUrl}/v1/mcp/oauth/callback?`)).toBe(true)
    expect(response?.status).toBe(200)
    expect(await response?.text()).toContain('MCP server “remote” is authorized')
    expect(await settledStatus(first.app)).toBe('connected')
    expect(await settledStatus(second.app)).toBe('connected')

    const replay = await fetch(landing)
    expect(replay.status).toBe(400)
    expect(await replay.json()).toMatchObject({ code: 'oauth_callback_invalid' })

    // Sealed in the shared hash, listed by no API.
    const listed = await first.app.inject({ url: '/v1/secrets', headers: auth(ADMIN) })
    expect(listed.json()).toEqual({ secrets: [] })
    const reader = new Redis(redis.url)
    const stored = await reader.hgetall('toolexec:secrets')
    reader.disconnect()
    expect(Object.keys(stored)).toContain('oauth:remote:tokens')
    const token = mcp.accepted.at(-1)?.token ?? ''
    expect(token).not.toBe('')
    expect(JSON.stringify(stored)).not.toContain(token)

    // Nothing of the grant in the first instance's log, the callback's request line included.
    const tokens = JSON.parse(String(await first.app.secrets.internal.read('oauth:remote:tokens'))) as {
      refresh_token: string
    }
    const log = lines.join('\n')
    expect(log).toContain('MCP server authorized')
    for (const value of [
      token,
      tokens.refresh_token,
      landing.searchParams.get('code'),
      landing.searchParams.get('state'),
    ])
      expect(log).not.toContain(String(value))
  })

  it('spends each rotating refresh token once while both instances call the server', async () => {
    const tools = [first, second].map((app) => findTool(app.app.mcpServers.tools(), 'mcp__remote__whoami'))
    const refusedBefore = mcp.refused
    const refreshes = () => as.grants.filter((grant) => grant === 'refresh_token').length
    const before = refreshes()
    // Until two refreshes happened (the access token lives 4 s): every call succeeds meanwhile.
    while (refreshes() < before + 2) {
      const answers = await Promise.all(tools.map((tool) => runTool(tool, {})))
      expect(answers).toEqual([{ content: 'client console' }, { content: 'client console' }])
    }
    // A refresh token spent twice would have revoked the grant (oidc-provider detects reuse).
    expect(await settledStatus(first.app)).toBe('connected')
    expect(await settledStatus(second.app)).toBe('connected')
    expect(mcp.refused).toBe(refusedBefore)
  })
})
