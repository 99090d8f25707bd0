import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { runFingerprint } from '../../../src/runs/run-fingerprint.js'
import { prepareRunInput } from '../../../src/runs/run-input.js'
import { jsonResponse, problemResponses } from '../../responses.js'
import {
  CreateRunBodySchema,
  IdempotencyHeadersSchema,
  RunAcceptedSchema,
  RunParamsSchema,
  RunResultSchema,
  RunSchema,
} from './run-schemas.js'
import { eventsUrl, toRunResult, toRunView } from './run-views.js'

/** POST /v1/runs and GET /v1/runs/{run_id}. */
export const runsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/v1/runs', {
    schema: {
      tags: ['runs'],
      summary: 'Execute a batch of tool_use blocks',
      headers: IdempotencyHeadersSchema,
      body: CreateRunBodySchema,
      response: {
        200: jsonResponse('wait: true — the run is over; results in block order', RunResultSchema),
        202: jsonResponse('wait: false — the run goes on; follow events_url', RunAcceptedSchema),
        ...problemResponses(400, 401, 404, 409, 413, 429, 503),
      },
    },
    handler: async (request, reply) => {
      const { wait, session_id, tool_uses, message, ...options } = request.body
      const key = request.headers['idempotency-key']
      const handle = await app.runManager.start({
        tenant: request.tenant,
        ...(session_id === undefined ? {} : { sessionId: session_id }),
        mode: wait ? 'wait' : 'async',
        input: prepareRunInput({ tool_uses, message }, app.config),
        options,
        ...(key === undefined ? {} : { idempotency: { key, fingerprint: runFingerprint(request.body) } }),
        logger: request.log,
      })
      if (wait) return toRunResult(await handle.finished)
      const { status } = await app.runManager.get(request.tenant, handle.runId)
      return reply.code(202).send({ run_id: handle.runId, status, events_url: eventsUrl(handle.runId) })
    },
  })

  app.get('/v1/runs/:run_id', {
    schema: {
      tags: ['runs'],
      summary: 'Status and results so far',
      params: RunParamsSchema,
      response: { 200: jsonResponse('The run', RunSchema), ...problemResponses(401, 404) },
    },
    handler: async (request) => toRunView(await app.runManager.get(request.tenant, request.params.run_id)),
  })
}
