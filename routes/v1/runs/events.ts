import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { callerOf } from '../../../plugins/auth.js'
import { ApiError } from '../../../src/errors/api-error.js'
import { createSubscriberLimits } from '../../../src/runs/capacity/subscriber-limits.js'
import { applyControlFrame, ControlFrameSchema } from '../../../src/runs/control/control-frame.js'
import { problemResponses } from '../../responses.js'
import { decodeFrame } from '../frames.js'
import { SLOW_SUBSCRIBER_CLOSE_CODE, serveEventSocket } from './event-socket.js'
import { serveEventStream } from './event-stream.js'
import { RunEventSchema } from './run-event-schema.js'
import { RunParamsSchema } from './run-schemas.js'

const EventsQuerySchema = z.object({
  after: z.coerce.number().int().min(0).default(0).describe('Replay from the event after this seq'),
})

/** GET /v1/runs/{run_id}/events: WebSocket, or SSE with `Accept: text/event-stream`. */
export const runEventsRoutes: FastifyPluginAsyncZod = async (app) => {
  const { runManager, metrics } = app
  const { maxBufferBytes, maxPerRun, maxPerTenant } = app.config.subscribers
  const subscribers = createSubscriberLimits({ maxPerRun, maxPerTenant })
  app.route({
    method: 'GET',
    url: '/v1/runs/:run_id/events',
    schema: {
      tags: ['runs'],
      operationId: 'getRunEvents',
      summary: 'Run events over WebSocket (upgrade) or Server-Sent Events',
      params: RunParamsSchema,
      querystring: EventsQuerySchema,
      headers: z.object({ 'last-event-id': z.string().regex(/^\d+$/).optional() }),
      response: {
        200: {
          description: 'SSE: one RunEvent per `data:` line',
          content: { 'text/event-stream': { schema: RunEventSchema } },
        },
        204: z.undefined().describe('SSE: the run is over and nothing comes after the requested seq'),
        ...problemResponses(401, 404, 426, 429),
      },
    },
    // Before the upgrade, so an unknown run is a plain 404 rather than a socket that closes.
    // The subscriber caps too: a refusal is a 429 problem, not a socket closed at once.
    preHandler: async (request) => {
      await runManager.get(request.tenant, request.params.run_id)
      subscribers.check(request.tenant, request.params.run_id)
    },
    handler: async (request, reply) => {
      if (!request.headers.accept?.includes('text/event-stream')) {
        throw new ApiError('websocket_required', 'Upgrade to WebSocket, or send Accept: text/event-stream for SSE')
      }
      const lastEventId = request.headers['last-event-id']
      const after = lastEventId === undefined ? request.query.after : Number(lastEventId)
      const release = subscribers.acquire(request.tenant, request.params.run_id)
      metrics.subscriberOpened('sse')
      try {
        await serveEventStream(
          request,
          reply,
          (listener, onEnd) => runManager.subscribe(request.tenant, request.params.run_id, after, listener, onEnd),
          () => {
            release()
            metrics.subscriberClosed('sse')
          },
          maxBufferBytes,
        )
      } catch (error) {
        release()
        throw error
      }
    },
    wsHandler: (socket, request) => {
      const { tenant, params, query } = request
      let release: () => void
      try {
        release = subscribers.acquire(tenant, params.run_id)
      } catch {
        // Lost a race with another subscriber after the preHandler's check.
        socket.close(SLOW_SUBSCRIBER_CLOSE_CODE, 'too many subscribers: retry later')
        return
      }
      metrics.subscriberOpened('websocket')
      serveEventSocket(socket, {
        subscribe: (listener, onEnd) => runManager.subscribe(tenant, params.run_id, query.after, listener, onEnd),
        onFrame: async (raw) =>
          applyControlFrame(decodeFrame(raw, ControlFrameSchema, app.config), request.keyName, {
            cancel: (mode) => runManager.cancel(tenant, params.run_id, mode),
            answer: (requestId, answer) =>
              runManager.answerPermission(callerOf(request), params.run_id, requestId, answer),
          }),
        log: request.log,
        maxBufferedBytes: maxBufferBytes,
        onClose: () => {
          release()
          metrics.subscriberClosed('websocket')
        },
      })
    },
  })
}
