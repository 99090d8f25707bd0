import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { REFUSAL_PACE_MS } from '../../../src/runs/capacity/admission.js'
import { openPermissionRequests } from '../../../src/runs/control/open-permission-requests.js'
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
    // After auth (route hooks run after the app's): a full instance or tenant is refused before
    // the body is read and validated. A retry with an Idempotency-Key may be a replay, which is
    // answered whatever the load (docs/adr/0163-refused-before-the-body-is-read.md).
    onRequest: (request, _reply, done) => {
      if (request.headers['idempotency-key'] !== undefined) return done()
      try {
        app.admission.refuseNewRun(request.tenant)
      } catch (error) {
        setTimeout(done, REFUSAL_PACE_MS, error as Error)
        return
      }
      done()
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
      // A handle without a live run is an earlier run this key maps to (docs/adr/0133-idempotent-replayed-header.md).
      if (handle.kind === 'replayed') reply.header('idempotent-replayed', 'true')
      if (wait) return toRunResult(await handle.finished)
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
      const events = record.status === 'running' ? await app.stores.events.read(record.runId, 0) : []
      return toRunView(record, openPermissionRequests(events))
    },
  })
}
