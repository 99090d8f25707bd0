import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { admissionHook } from '../../../plugins/run-manager.js'
import { openPermissionRequests, resolvedPermissions } from '../../../src/runs/control/open-permission-requests.js'
import { requestFromBody } from '../../../src/runs/run-request.js'
import { jsonResponse, problemResponses } from '../../responses.js'
import { createRunValidatorCompiler } from './create-run-validator.js'
import { runResultSerializerCompiler } from './run-result-serializer.js'
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
      operationId: 'createRun',
      summary: 'Execute a batch of tool_use blocks',
      description:
        'A retry with the same Idempotency-Key and body answers with the earlier run and the header `Idempotent-Replayed: true`.',
      headers: IdempotencyHeadersSchema,
      body: CreateRunBodySchema,
      response: {
        200: jsonResponse('wait: true — the run is over; results in block order', RunResultSchema),
        202: jsonResponse('wait: false — the run goes on; follow events_url', RunAcceptedSchema),
        ...problemResponses(400, 401, 404, 409, 413, 429, 503),
      },
    },
    // The common body is checked and the 200 written by hand, as zod would (docs/adr/0429, 0430).
    validatorCompiler: createRunValidatorCompiler,
    serializerCompiler: runResultSerializerCompiler,
    onRequest: admissionHook(app),
    handler: async (request, reply) => {
      const handle = await app.runManager.start(
        requestFromBody(
          request.body,
          { tenant: request.tenant, idempotencyKey: request.headers['idempotency-key'], logger: request.log },
          app.config,
        ),
      )
      // A replayed handle is an earlier run this key maps to (docs/adr/0133-idempotent-replayed-header.md).
      if (handle.kind === 'replayed') reply.header('idempotent-replayed', 'true')
      if (request.body.wait) return toRunResult(await handle.finished)
      return reply.code(202).send({ run_id: handle.runId, status: handle.status, events_url: eventsUrl(handle.runId) })
    },
  })

  app.get('/v1/runs/:run_id', {
    schema: {
      tags: ['runs'],
      operationId: 'getRun',
      summary: 'Status and results so far',
      params: RunParamsSchema,
      response: { 200: jsonResponse('The run', RunSchema), ...problemResponses(401, 404) },
    },
    handler: async (request) => {
      const record = await app.runManager.get(request.tenant, request.params.run_id)
      const events = await app.stores.events.read(record.runId, 0)
      return toRunView(record, openPermissionRequests(events), resolvedPermissions(events))
    },
  })
}
