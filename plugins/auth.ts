import fp from 'fastify-plugin'
import { createAuthenticator } from '../src/auth/authenticator.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** Who is calling: set by the auth plugin before any route runs. */
    tenant: string
  }
}

// Operational endpoints stay reachable for probes, scrapers and people reading the docs.
const PUBLIC_ROUTES = new Set(['/healthz', '/readyz', '/metrics', '/openapi.json'])

/** Bearer API keys → tenants; with no keys configured, loopback clients only, as tenant `default`. */
export const authPlugin = fp(
  async (app) => {
    const authenticate = createAuthenticator(app.config.apiKeys)
    app.decorateRequest('tenant', '')
    app.addHook('onRequest', (request, _reply, done) => {
      const route = request.routeOptions.url ?? ''
      if (PUBLIC_ROUTES.has(route) || route === '/docs' || route.startsWith('/docs/')) return done()
      try {
        request.tenant = authenticate({
          authorization: request.headers.authorization,
          accessToken: (request.query as { access_token?: unknown } | undefined)?.access_token,
          remoteAddress: request.raw.socket?.remoteAddress,
        })
      } catch (error) {
        return done(error as Error)
      }
      done()
    })
  },
  { name: 'auth', dependencies: ['config'] },
)
