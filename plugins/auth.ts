import fp from 'fastify-plugin'
import type { KeyRole } from '../src/auth/api-key.js'
import { createAuthenticator } from '../src/auth/authenticator.js'
import { type Caller, type Capability, requireCapability } from '../src/auth/capability.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling: set by the auth plugin before any route runs. */
    tenant: string
    /** The name of the key the caller used (never the key), and its role (docs/adr/0240-key-roles.md). */
    keyName: string
    role: KeyRole
  }
  interface FastifyContextConfig {
    /**
     * What the route needs of the caller's key. Unset: `read` for GET and HEAD, `run` for every
     * other method, so a new route that changes something is closed to approver keys by default.
     */
    capability?: Capability
  }
}

// Operational endpoints stay reachable for probes, scrapers and people reading the docs; the OAuth
// callback is a browser's redirect, authenticated by the `state` an admin's key obtained
// (docs/adr/0423-authorization-state.md).
const PUBLIC_ROUTES = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json', '/v1/mcp/oauth/callback'])

/** The API docs and the console: pages holding no data, which ask for a key themselves. */
const isPageRoute = (route: string) =>
  route === '/docs' || route.startsWith('/docs/') || route === '/console' || route.startsWith('/console/')

/** The caller of a request the auth plugin has seen. */
export const callerOf = (request: { tenant: string; keyName: string; role: KeyRole }): Caller => ({
  tenant: request.tenant,
  keyName: request.keyName,
  role: request.role,
})

/**
 * Bearer API keys → tenant, key name and role; with no keys configured, loopback clients only, as
 * tenant `default` with every right. Each route's capability is checked here, before its body is read.
 */
export const authPlugin = fp(
  async (app) => {
    const authenticate = createAuthenticator(app.config.apiKeys)
    app.decorateRequest('tenant', '')
    app.decorateRequest('keyName', '')
    app.decorateRequest('role', 'runner')
    app.addHook('onRequest', (request, _reply, done) => {
      const route = request.routeOptions.url ?? ''
      if (PUBLIC_ROUTES.has(route) || isPageRoute(route)) return done()
      try {
        const caller = authenticate({
          authorization: request.headers.authorization,
          accessToken: (request.query as { access_token?: unknown } | undefined)?.access_token,
          remoteAddress: request.raw.socket?.remoteAddress,
        })
        request.tenant = caller.tenant
        request.keyName = caller.keyName
        request.role = caller.role
        const method = request.method
        const capability =
          request.routeOptions.config?.capability ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'run')
        requireCapability(caller, capability)
      } catch (error) {
        return done(error as Error)
      }
      done()
    })
  },
  { name: 'auth', dependencies: ['config'] },
)
