import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { callerOf } from '../../../plugins/auth.js'
import { permissionAnswerOf } from '../../../src/runs/control/control-frame.js'
import { jsonResponse, problemResponses } from '../../responses.js'
import {
  CancelRunBodySchema,
  CancelRunResponseSchema,
  PermissionAnswerBodySchema,
  RunParamsSchema,
} from './run-schemas.js'

/** POST /v1/runs/{run_id}/cancel and the HTTP way to answer a permission ask. */
export const runControlRoutes: FastifyPluginAsyncZod = async (app) => {
  app.post('/v1/runs/:run_id/cancel', {
    // Stopping work is open to every role: an approver who sees a run going wrong may end it.
    config: { capability: 'read' },
    schema: {
      tags: ['runs'],
      operationId: 'cancelRun',
      summary: 'Cancel (or interrupt) a run; every unfinished call gets a result',
      params: RunParamsSchema,
      body: CancelRunBodySchema,
      response: {
        202: jsonResponse('Cancel requested (or the run was over)', CancelRunResponseSchema),
        ...problemResponses(400, 401, 403, 404),
      },
    },
    handler: async (request, reply) => {
      const record = await app.runManager.cancel(request.tenant, request.params.run_id, request.body?.mode)
      const cancelRequested = record.status === 'running'
      return reply.code(202).send({ run_id: record.runId, status: record.status, cancel_requested: cancelRequested })
    },
  })

  app.post('/v1/runs/:run_id/permissions/:request_id', {
    config: { capability: 'approve' },
    schema: {
      tags: ['runs'],
      operationId: 'answerPermission',
      summary: 'Answer a permission.requested event',
      params: RunParamsSchema.extend({ request_id: z.string().min(1) }),
      body: PermissionAnswerBodySchema,
      response: {
        200: jsonResponse(
          'The answer was delivered',
          z.object({ run_id: z.string(), request_id: z.string(), decision: z.enum(['allow', 'deny']) }),
        ),
        ...problemResponses(400, 401, 403, 404),
      },
    },
    handler: async (request) => {
      const { run_id, request_id } = request.params
      const answer = permissionAnswerOf(request.body, request.keyName)
      await app.runManager.answerPermission(callerOf(request), run_id, request_id, answer)
      return { run_id, request_id, decision: answer.decision }
    },
  })
}
