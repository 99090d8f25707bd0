import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type NodeIncomingMessageLike, toNodeHandler } from '@modelcontextprotocol/node'
import {
  type AuthInfo,
  createMcpHandler,
  getOAuthProtectedResourceMetadataUrl,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  oauthMetadataResponse,
  requireBearerAuth,
} from '@modelcontextprotocol/server'
import { createRemoteJWKSet, jwtVerify } from 'jose'

export type OAuthMcpServer = {
  url: string
  /** Scopes every request's token must carry; change it to make the server ask for a step-up. */
  requiredScopes: string[]
  /** Each accepted request's token: client, scopes, and the token itself (to tell refreshes apart). */
  accepted: { clientId: string; scopes: string[]; token: string }[]
  /** How many requests were refused (401 or 403). */
  refused: number
  close(): Promise<void>
}

/**
 * A real MCP server (SDK v2) acting as an OAuth resource server: its protected-resource metadata
 * (RFC 9728) names `issuer`, and every request needs a JWT access token the authorization server
 * signed for this server's URL, checked against its published keys. One tool, `whoami`.
 */
export async function startOAuthMcpServer(issuer: string, scopes: string[]): Promise<OAuthMcpServer> {
  const http = createServer()
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
  const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as {
    jwks_uri: string
    [key: string]: unknown
  }
  const keys = createRemoteJWKSet(new URL(discovery.jwks_uri))
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      try {
        const { payload } = await jwtVerify(token, keys, { issuer, audience: url })
        return {
          token,
          clientId: String(payload.client_id),
          scopes: String(payload.scope ?? '')
            .split(' ')
            .filter(Boolean),
          expiresAt: payload.exp ?? 0,
          resource: new URL(url),
        }
      } catch (error) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, `token refused: ${String(error)}`)
      }
    },
  }
  const state: OAuthMcpServer = {
    url,
    requiredScopes: scopes,
    accepted: [],
    refused: 0,
    close: async () => {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    },
  }
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'oauth-protected', version: '1.0.0' })
    server.registerTool('whoami', { description: 'Who the token says the caller is' }, async (ctx) => ({
      content: [{ type: 'text', text: `client ${ctx.http?.authInfo?.clientId}` }],
    }))
    return server
  })
  const metadata = {
    oauthMetadata: discovery as never,
    resourceServerUrl: new URL(url),
    scopesSupported: scopes,
    dangerouslyAllowInsecureIssuerUrl: true,
  }
  const serve = toNodeHandler({
    fetch: async (request: Request) => {
      const document = oauthMetadataResponse(request, metadata)
      if (document) return document
      const gate = requireBearerAuth({
        verifier,
        requiredScopes: state.requiredScopes,
        expectedResource: new URL(url),
        resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(new URL(url)),
      })
      const auth = await gate(request)
      if (auth instanceof Response) {
        state.refused += 1
        return auth
      }
      state.accepted.push({ clientId: auth.clientId, scopes: auth.scopes, token: auth.token })
      return handler.fetch(request, { authInfo: auth })
    },
  })
  http.on('request', (request, response) => void serve(request as NodeIncomingMessageLike, response))
  return state
}
