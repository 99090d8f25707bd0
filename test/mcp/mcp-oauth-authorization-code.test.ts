// The OAuth authorization-code flow with PKCE an operator completes once (docs/adr/0423-authorization-state.md),
// against node-oidc-provider and an SDK v2 resource server: the server waits in `needs_authorization`,
// the admin's URL leads through login and consent back to the callback, the code is exchanged with
// the verifier, tokens are refreshed (rotating refresh tokens) before they lapse, and a callback
// with another issuer's `iss` (RFC 9207) or a spent `state` is refused.
import { setTimeout } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { createMcpManager, type McpManager } from '../../src/mcp/client/mcp-manager.js'
import { createMemoryVault } from '../helpers/memory-vault.js'
import { startTestAuthorizationServer } from '../helpers/oauth-authorization-server.js'
import { openInBrowser } from '../helpers/oauth-browser.js'
import { type OAuthMcpServer, startOAuthMcpServer } from '../helpers/oauth-mcp-server.js'
import { CLIENT_INFO, findTool, runTool } from './mcp-test-helpers.js'

const PUBLIC_URL = 'http://toolexec.test'
const CALLBACK = `${PUBLIC_URL}/v1/mcp/oauth/callback`

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setup(ttl = 300) {
  let mcp: OAuthMcpServer | undefined
  const as = await startTestAuthorizationServer({
    resource: () => mcp?.url ?? '',
    scopes: 'mcp:read',
    accessTokenTtl: ttl,
    clients: [
      {
        client_id: 'console',
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
        redirect_uris: [CALLBACK],
        response_types: ['code'],
        scope: 'mcp:read',
      },
    ],
  })
  cleanups.push(as.close)
  mcp = await startOAuthMcpServer(as.issuer, ['mcp:read'])
  cleanups.push(mcp.close)
  const vault = createMemoryVault()
  const manager = createMcpManager({
    servers: {
      remote: {
        type: 'http',
        url: mcp.url,
        oauth: { grant: 'authorization_code', client_id: 'console', scope: 'mcp:read' },
      },
    },
    clientInfo: CLIENT_INFO,
    resolveSecret: (name) => vault.resolve(name),
    oauthRecords: vault.internal,
    publicUrl: PUBLIC_URL,
    retry: { initialDelayMs: 10, maxAttempts: 2 },
  })
  cleanups.push(manager.close)
  await manager.ready()
  return { as, mcp, vault, manager }
}

/** Resolves once the server reports `connected` (its tools arrive just before the status does). */
async function connected(manager: McpManager): Promise<void> {
  while (manager.states()[0]?.status !== 'connected') await setTimeout(5)
}

/** The admin's step: the URL, opened in the browser up to the redirect that would land on toolexec. */
async function authorizeInBrowser(manager: McpManager) {
  const url = await manager.oauth.authorize('remote')
  expect(url.searchParams.get('code_challenge_method')).toBe('S256')
  const { url: landing } = await openInBrowser(url.href, CALLBACK)
  const param = (name: string) => landing.searchParams.get(name) ?? undefined
  return {
    code: param('code'),
    state: param('state'),
    iss: param('iss'),
    error: undefined,
    error_description: undefined,
  }
}

describe('OAuth authorization code with PKCE', () => {
  it('waits for an admin, then connects with the tokens the browser flow got, and refreshes them', async () => {
    const { as, mcp, vault, manager } = await setup(4)
    expect(manager.states()[0]).toMatchObject({ status: 'needs_authorization' })
    expect(manager.states()[0]?.lastError).toContain('POST /v1/mcp/servers/remote/authorize')

    const callback = await authorizeInBrowser(manager)
    expect(callback.iss).toBe(as.issuer)
    const up = connected(manager)
    expect(await manager.oauth.complete(callback)).toBe('remote')
    await up
    expect(manager.states()[0]).toMatchObject({ status: 'connected', toolCount: 1 })
    expect(as.grants).toContain('authorization_code')

    // Calls until one goes out with a refreshed token (the access token lives 4 s).
    const whoami = findTool(manager.tools(), 'mcp__remote__whoami')
    const first = mcp.accepted.at(-1)?.token
    while (mcp.accepted.at(-1)?.token === first) {
      expect(await runTool(whoami, {})).toEqual({ content: 'client console' })
    }
    expect(as.grants).toContain('refresh_token')
    const stored = JSON.parse(String(await vault.internal.read('oauth:remote:tokens'))) as { refresh_token?: string }
    expect(stored.refresh_token).toBeTruthy()
    expect(await vault.list()).toEqual([])
  })

  it('refuses a callback whose `iss` names another authorization server, and a state used once already', async () => {
    const { as, manager } = await setup()
    const callback = await authorizeInBrowser(manager)
    await expect(manager.oauth.complete({ ...callback, iss: 'https://attacker.example' })).rejects.toThrow(/iss/i)
    // The state was spent by that attempt: the genuine response cannot follow it.
    await expect(manager.oauth.complete(callback)).rejects.toThrow('unknown or already used state')
    expect(manager.states()[0]).toMatchObject({ status: 'needs_authorization' })
    expect(as.grants).not.toContain('authorization_code')

    const again = await authorizeInBrowser(manager)
    const up = connected(manager)
    await manager.oauth.complete(again)
    await up
    expect(manager.states()[0]).toMatchObject({ status: 'connected' })
  })

  it('asks for the browser step again when the refresh token is revoked', async () => {
    const { as, vault, manager } = await setup(4)
    const up = connected(manager)
    await manager.oauth.complete(await authorizeInBrowser(manager))
    await up
    const stored = JSON.parse(String(await vault.internal.read('oauth:remote:tokens'))) as { refresh_token: string }
    await (await as.provider.RefreshToken.find(stored.refresh_token))?.destroy()
    const whoami = findTool(manager.tools(), 'mcp__remote__whoami')
    // Calls until the refresh is due and refused: the result then says what an admin must do.
    let answer = await runTool(whoami, {}).catch((error: Error) => error.message)
    while (typeof answer !== 'string') answer = await runTool(whoami, {}).catch((error: Error) => error.message)
    expect(answer).toContain('POST /v1/mcp/servers/remote/authorize')
    expect(manager.states()[0]).toMatchObject({ status: 'needs_authorization' })
  })

  it('refuses to start a browser flow for a server that needs none', async () => {
    const { manager } = await setup()
    await expect(manager.oauth.authorize('nope')).rejects.toThrow('No MCP server is named "nope"')
  })
})
