import fp from 'fastify-plugin'

/**
 * Keep-alive connections whose response ends after shutdown began close at once.
 *
 * `server.close()` closes the connections that are idle at that moment and skips those whose
 * response has not ended yet. One that ends a moment later (a client can read a whole
 * Content-Length body before the server's file stream calls `end()`) would then sit idle for the
 * full keep-alive timeout, 72 s in fastify, and hold the close that long. From `preClose` on, the
 * keep-alive timeout a finishing response arms is 1 ms (docs/adr/0280-connections-idle-after-close-began-close-at-once.md).
 */
export const closeIdleOnShutdownPlugin = fp(
  async (app) => {
    app.addHook('preClose', async () => {
      app.server.keepAliveTimeout = 1
    })
  },
  { name: 'close-idle-on-shutdown' },
)
