import websocket from '@fastify/websocket'
import fp from 'fastify-plugin'

/**
 * WebSocket support. Frames up to TOOLEXEC_MAX_FRAME_BYTES are checked by the routes, which
 * answer an oversized one with an `error` frame and keep the socket; the transport only drops
 * frames four times larger (close code 1009), so memory stays bounded.
 *
 * Registered before auth: its onRequest hook marks upgrade requests so a refused upgrade (401)
 * has its socket closed. On close it waits for the run drain, so subscribers still receive
 * `run.completed`, then closes the sockets that are left with 1001.
 */
export const websocketPlugin = fp(
  async (app) => {
    await app.register(websocket, {
      options: { maxPayload: app.config.maxFrameBytes * 4 },
      errorHandler: (error, socket, request) => {
        request.log.warn({ err: error }, 'websocket error')
        socket.terminate()
      },
      preClose: async () => {
        if (app.hasDecorator('runManager')) await app.runManager.shutdown(app.config.shutdownGraceMs)
        for (const client of app.websocketServer.clients) client.close(1001, 'server shutting down')
        // Not awaited: the server's close callback waits for every closing handshake to finish.
        app.websocketServer.close()
      },
    })
  },
  { name: 'websocket', dependencies: ['config'] },
)
