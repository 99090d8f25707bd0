// OAuth client credentials against a real authorization server (node-oidc-provider) in front of a
// real MCP server (SDK v2) that checks JWT access tokens (docs/adr/0420-oauth-tokens-in-the-vault.md):
// discovery from the MCP server's 401, a token for the secret and for the private_key_jwt client,
// the token in the vault and not in `GET /v1/secrets`' list, a refused secret as `unauthorized`,
// a token refreshed before it lapses, and a step-up on `insufficient_scope`.
import { randomBytes } from 'node:crypto'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterEach, describe, expect, it } from 'vitest'
import { createMcpManager } from '../../src/mcp/client/mcp-manager.js'
import type { createSecretVault } from '../../src/secrets/secret-vault.js'
import { createMemoryVault } from '../helpers/memory-vault.js'
import { clientSigningKey, startTestAuthorizationServer } from '../helpers/oauth-authorization-server.js'
import { type OAuthMcpServer, startOAuthMcpServer } from '../helpers/oauth-mcp-server.js'
import { CLIENT_INFO, findTool, runTool } from './mcp-test-helpers.js'

const ref = (name: string) => `\${secret:${name}}`

/** The pre-registered client-credentials client `robot`, its secret in the store. */
const robotServer = (url: string) => ({
  type: 'http' as const,
  url,
  oauth: {
    grant: 'client_credentials' as const,
    client_id: 'robot',
    client_secret: ref('robot-secret'),
    scope: 'mcp:read',
  },
})
const SECRET = `cs-${randomBytes(16).toString('hex')}`

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setup(options: { ttl?: number } = {}) {
  const signing = clientSigningKey()
  let mcp: OAuthMcpServer | undefined
  const as = await startTestAuthorizationServer({
    resource: () => mcp?.url ?? '',
    scopes: 'mcp:read mcp:admin',
    accessTokenTtl: options.ttl ?? 300,
    clients: [
      {
        client_id: 'robot',
        client_secret: SECRET,
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: 'mcp:read mcp:admin',
      },
      {
        client_id: 'signer',
        token_endpoint_auth_method: 'private_key_jwt',
        jwks: { keys: [signing.jwk] },
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        scope: 'mcp:read mcp:admin',
      },
    ],
  })
  cleanups.push(as.close)
  mcp = await startOAuthMcpServer(as.issuer, ['mcp:read'])
  cleanups.push(mcp.close)
  const vault = createMemoryVault()
  await vault.write('robot-secret', SECRET, 'ops')
  await vault.write('signer-key', signing.pem, 'ops')
  return { as, mcp, vault }
}

function manager(
  vault: ReturnType<typeof createSecretVault>,
  servers: Parameters<typeof createMcpManager>[0]['servers'],
) {
  const created = createMcpManager({
    servers,
    clientInfo: CLIENT_INFO,
    resolveSecret: (name) => vault.resolve(name),
    oauthRecords: vault.internal,
    retry: { initialDelayMs: 10, maxAttempts: 2 },
  })
  cleanups.push(created.close)
  return created
}

describe('OAuth client credentials', () => {
  it('discovers the authorization server, gets a token with a client secret and with a signed JWT, and calls the tool', async () => {
    const { as, mcp, vault } = await setup()
    const servers = manager(vault, {
      secret: robotServer(mcp.url),
      jwt: {
        type: 'http',
        url: mcp.url,
        oauth: { grant: 'private_key_jwt', client_id: 'signer', private_key: ref('signer-key'), scope: 'mcp:read' },
      },
    })
    await servers.ready()
    expect(servers.states().map((state) => [state.name, state.status])).toEqual([
      ['secret', 'connected'],
      ['jwt', 'connected'],
    ])
    expect(await runTool(findTool(servers.tools(), 'mcp__secret__whoami'), {})).toEqual({ content: 'client robot' })
    expect(await runTool(findTool(servers.tools(), 'mcp__jwt__whoami'), {})).toEqual({ content: 'client signer' })
    expect(as.grants.filter((grant) => grant === 'client_credentials').length).toBeGreaterThanOrEqual(2)
    // The tokens are sealed in the store, out of the secrets list, and in no state.
    expect((await vault.list()).map((secret) => secret.name)).toEqual(['robot-secret', 'signer-key'])
    const stored = await vault.internal.read('oauth:secret:tokens')
    const token = (JSON.parse(String(stored)) as { access_token: string }).access_token
    expect(mcp.accepted.some((request) => request.token === token)).toBe(true)
    expect(JSON.stringify(servers.states())).not.toContain(token)
  })

  it('reports a refused client secret as `unauthorized`, saying what to fix', async () => {
    const { mcp, vault } = await setup()
    await vault.write('wrong-secret', 'not-the-secret', 'ops')
    const servers = manager(vault, {
      remote: {
        type: 'http',
        url: mcp.url,
        oauth: { grant: 'client_credentials', client_id: 'robot', client_secret: ref('wrong-secret') },
      },
    })
    await servers.ready()
    const [state] = servers.states()
    expect(state?.status).toBe('unauthorized')
    expect(state?.lastError).toContain('invalid_client')
    expect(state?.lastError).toContain('oauth.client_secret')
    expect(state?.lastError).not.toContain('not-the-secret')
    expect(mcp.accepted).toEqual([])

    // The admin writes the right value: the server tries again and connects.
    vault.onWrite(() => servers.retryFailed())
    await vault.write('wrong-secret', SECRET, 'ops')
    while (servers.states()[0]?.status !== 'connected') await sleep(5)
    expect(await runTool(findTool(servers.tools(), 'mcp__remote__whoami'), {})).toEqual({ content: 'client robot' })
  })

  it('gets a new token before the old one lapses', async () => {
    const { mcp, vault } = await setup({ ttl: 4 })
    const servers = manager(vault, {
      remote: robotServer(mcp.url),
    })
    await servers.ready()
    const whoami = findTool(servers.tools(), 'mcp__remote__whoami')
    const first = mcp.accepted.at(-1)?.token
    // Calls until one goes out with another token: no sleep, no clock in the assertion.
    while (mcp.accepted.at(-1)?.token === first) {
      expect(await runTool(whoami, {})).toEqual({ content: 'client robot' })
    }
    // Refreshed ahead of expiry: the server never had to refuse a lapsed token.
    expect(mcp.refused).toBe(1) // the unauthenticated first request that started discovery
  })

  it('steps up to the scope an `insufficient_scope` challenge names', async () => {
    const { mcp, vault } = await setup()
    const servers = manager(vault, {
      remote: robotServer(mcp.url),
    })
    await servers.ready()
    mcp.requiredScopes = ['mcp:read', 'mcp:admin']
    expect(await runTool(findTool(servers.tools(), 'mcp__remote__whoami'), {})).toEqual({ content: 'client robot' })
    expect(mcp.accepted.at(-1)?.scopes.sort()).toEqual(['mcp:admin', 'mcp:read'])
  })
})
