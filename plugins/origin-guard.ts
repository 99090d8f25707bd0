import fp from 'fastify-plugin'
import { createRequestOriginPolicy } from '../src/auth/request-origin-policy.js'

/**
 * Refuses requests a web page made the operator's browser send: a foreign Host (DNS rebinding)
 * or a foreign Origin (cross-site fetch, form or WebSocket), on every route, with a 403 problem
 * (docs/adr/0100-host-and-origin-checks.md).
 *
 * Registered after the WebSocket plugin, whose onRequest hook marks upgrade requests so a refused
 * upgrade is answered and closed, and before auth, so the refusal does not depend on a key.
 */
export const originGuardPlugin = fp(
  async (app) => {
    const refusal = createRequestOriginPolicy({
      bindHost: app.config.host,
      allowedHosts: app.config.allowedHosts,
      allowedOrigins: app.config.allowedOrigins,
    })
    // Callback style, as on every per-request hook: no promise per request (docs/adr/0175-hot-path-http-layer.md).
    app.addHook('onRequest', (request, _reply, done) => {
      const error = refusal({ host: request.headers.host, origin: request.headers.origin })
      if (error === undefined) return done()
      request.log.warn(
        { code: error.code, host: request.headers.host, origin: request.headers.origin },
        'refused a request from a web page',
      )
      done(error)
    })
  },
  { name: 'origin-guard', dependencies: ['config', 'errors', 'websocket'] },
)
