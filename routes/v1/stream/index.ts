import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { callerOf } from '../../../plugins/auth.js'
import { ApiError } from '../../../src/errors/api-error.js'
import { StreamFrameSchema } from '../../../src/runs/stream/stream-frame.js'
import { createStreamInput } from '../../../src/runs/stream/stream-input.js'
import { problemResponses } from '../../responses.js'
import { handleFramesInOrder } from '../frame-loop.js'
import { decodeFrame } from '../frames.js'

/** GET /v1/stream: a WebSocket that takes tool_use blocks while the model is still producing them. */
export const streamRoutes: FastifyPluginAsyncZod = async (app) => {
  app.route({
    method: 'GET',
    url: '/v1/stream',
    schema: {
      tags: ['runs'],
      operationId: 'openStream',
      summary: 'Streamed input over WebSocket (see docs/events.md); plain HTTP gets 426',
      response: problemResponses(401, 426, 429, 503),
    },
    // Before the upgrade: a draining server answers a plain 503, like POST /v1/runs.
    preHandler: async () => {
      if (app.runManager.shuttingDown) {
        throw new ApiError('shutting_down', 'The server is shutting down and takes no new runs')
      }
    },
    handler: async () => {
      throw new ApiError('websocket_required', 'GET /v1/stream is a WebSocket endpoint')
    },
    wsHandler: (socket, request) => {
      const send = (frame: object) => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(frame))
      }
      const input = createStreamInput({
        runManager: app.runManager,
        caller: callerOf(request),
        limits: app.config,
        logger: request.log,
        send: (event) => {
          send(event)
          if (event.type === 'run.completed') socket.close(1000, 'run completed')
        },
      })
      app.metrics.subscriberOpened('stream')
      // Frames are handled strictly in order: a block must not overtake the run.start before it.
      const frames = handleFramesInOrder(socket, {
        onFrame: (raw) => input.handle(decodeFrame(raw, StreamFrameSchema, app.config)),
        send,
        log: request.log,
        failure: 'stream frame failed',
      })
      socket.on('close', () => {
        app.metrics.subscriberClosed('stream')
        frames.after(() => input.close())
      })
    },
  })
}
