import { generateKeyPairSync } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider, { type Configuration, errors } from 'oidc-provider'

/** One client the authorization server knows, as oidc-provider's client metadata. */
export type TestClient = { [key: string]: unknown; client_id: string }

export type TestAuthorizationServer = {
  issuer: string
  /** Registered clients, their keys and the MCP server (resource) tokens are minted for. */
  provider: Provider
  /** Every token-endpoint request's `grant_type`, in order (what toolexec asked for). */
  grants: string[]
  close(): Promise<void>
}

export type TestAuthorizationServerOptions = {
  /** The MCP server's URL: the only resource (RFC 8707) tokens are issued for, as JWTs. */
  resource: () => string
  /** Scopes the resource knows. */
  scopes: string
  clients: TestClient[]
  /** Access-token lifetime in seconds (short ones exercise the refresh). */
  accessTokenTtl: number
}

/** A private key for a `private_key_jwt` client: the PEM toolexec signs with, the JWK the server checks. */
export function clientSigningKey(): { pem: string; jwk: { [key: string]: unknown } } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
  return { pem, jwk: { ...publicKey.export({ format: 'jwk' }), alg: 'RS256', use: 'sig' } }
}

/**
 * A real OAuth 2.1 authorization server (node-oidc-provider) on a free loopback port: client
 * credentials (secret and private_key_jwt), authorization code with PKCE and rotating refresh
 * tokens, RFC 8707 resource indicators with JWT access tokens, RFC 9207 `iss` on the redirect.
 * The person at the browser is played by `/interaction/:uid`, which logs in `operator` and
 * grants every requested scope of the resource.
 */
export async function startTestAuthorizationServer(
  options: TestAuthorizationServerOptions,
): Promise<TestAuthorizationServer> {
  const grants: string[] = []
  const http = createServer()
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`

  const configuration: Configuration = {
    clients: options.clients,
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => options.resource(),
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, indicator) => {
          if (indicator !== options.resource()) throw new errors.InvalidTarget()
          return {
            scope: options.scopes,
            audience: indicator,
            accessTokenFormat: 'jwt',
            accessTokenTTL: options.accessTokenTtl,
          }
        },
      },
    },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
    scopes: options.scopes.split(' '),
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: true,
    pkce: { required: () => true },
    ttl: { AccessToken: options.accessTokenTtl, ClientCredentials: options.accessTokenTtl },
    cookies: { keys: ['test-cookie-key'] },
  }
  const provider = new Provider(issuer, configuration)
  provider.on('grant.success', (ctx) => {
    const body = ctx.oidc.params as { grant_type?: string } | undefined
    grants.push(String(body?.grant_type))
  })
  const callback = provider.callback()

  async function interaction(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const details = await provider.interactionDetails(request, response)
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(request, response, { login: { accountId: 'operator' } })
      return
    }
    // Consent to whatever is missing, as the operator would click it.
    const params = details.params as { client_id: string }
    const missing = details.prompt.details as {
      missingOIDCScope?: string[]
      missingResourceScopes?: { [resource: string]: string[] }
    }
    const grant = details.grantId
      ? ((await provider.Grant.find(details.grantId)) ??
        new provider.Grant({ accountId: 'operator', clientId: params.client_id }))
      : new provider.Grant({ accountId: 'operator', clientId: params.client_id })
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '))
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(resource, scopes.join(' '))
    const grantId = await grant.save()
    await provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true })
  }

  http.on('request', (request, response) => {
    if (request.url?.startsWith('/interaction/')) {
      interaction(request, response).catch((error: unknown) => {
        response.writeHead(500).end(String(error))
      })
      return
    }
    callback(request, response)
  })

  return {
    issuer,
    provider,
    grants,
    close: async () => {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    },
  }
}
