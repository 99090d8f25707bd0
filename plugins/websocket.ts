import websocket from '@fastify/websocket'
import fp from 'fastify-plugin'
import type { WebSocket } from 'ws'

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
    // Heartbeat: a client that vanished without closing (half-open TCP) would otherwise keep its
    // streamed run and its session open forever. Each tick drops sockets that missed the last pong.
    const alive = new WeakSet<WebSocket>()
    const heartbeat = setInterval(() => {
      for (const client of app.websocketServer.clients) {
        // A throw in a timer stops the process (docs/adr/0097-process-survives-faults-at-our-boundaries.md).
        try {
          if (!alive.has(client)) {
            client.terminate()
            continue
          }
          alive.delete(client)
          client.ping()
        } catch (error) {
          app.log.warn({ err: error }, 'websocket heartbeat failed for one client')
        }
      }
    }, app.config.wsPingIntervalMs)
    heartbeat.unref()
    app.addHook('onClose', async () => clearInterval(heartbeat))
    await app.register(websocket, {
      options: { maxPayload: app.config.maxFrameBytes * 4 },
      errorHandler: (error, socket, request) => {
        request.log.warn({ err: error }, 'websocket error')
        socket.terminate()
      },
      preClose: async () => {
        clearInterval(heartbeat)
        await app.runManager.shutdown(app.config.shutdownGraceMs)
        for (const client of app.websocketServer.clients) client.close(1001, 'server shutting down')
        // Not awaited: the server's close callback waits for every closing handshake to finish.
        app.websocketServer.close()
      },
    })
    app.websocketServer.on('connection', (client: WebSocket) => {
      alive.add(client)
      client.on('pong', () => alive.add(client))
    })
  },
  { name: 'websocket', dependencies: ['config', 'run-manager'] },
)
