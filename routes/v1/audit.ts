import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ApiError } from '../../src/errors/api-error.js'
import { jsonResponse, problemResponses } from '../responses.js'

const SourceSchema = z.object({
  type: z.enum(['rule', 'mode', 'hook', 'tool', 'default', 'answer', 'timeout', 'cancel', 'no_approver', 'bound']),
  rule: z.string().optional(),
  mode: z.string().optional(),
  reason: z.string().optional(),
  key_name: z.string().optional().describe('The name of the key that answered'),
  via: z
    .enum(['mcp_input_request'])
    .optional()
    .describe(
      "How the answer came: `mcp_input_request`, the user of the /mcp client that made the call; absent: the run's API",
    ),
  always: z.boolean().optional(),
  edited_input: z.boolean().optional(),
})

const AuditRecordSchema = z
  .object({
    id: z.string(),
    ts: z.string(),
    kind: z.enum(['decision', 'call', 'secret']).describe('`secret` records leave the call fields empty'),
    tenant: z.string(),
    session_id: z.string(),
    run_id: z.string(),
    tool_use_id: z.string(),
    tool: z.string(),
    input_sha256: z.string().describe("sha256 of the input's canonical JSON"),
    input: z.unknown().optional().describe('Only with TOOLEXEC_AUDIT_INPUTS=true, secrets redacted'),
    decision: z.enum(['allow', 'deny']).optional(),
    source: SourceSchema.optional(),
    outcome: z.enum(['ok', 'error', 'denied', 'cancelled', 'lost']).optional(),
    duration_ms: z.number().optional(),
    secret: z
      .object({
        name: z.string(),
        action: z.enum(['created', 'updated', 'deleted']),
        key_name: z.string().describe('The name of the key that did it'),
      })
      .optional()
      .describe('What an admin did to a secret (kind `secret`); never its value'),
  })
  .meta({ id: 'AuditRecord' })

// Stream ids (Redis) and `<ms>-<seq>` (memory): digits, one dash, digits.
const CURSOR = /^\d+-\d+$/

const AuditQuerySchema = z.object({
  run_id: z.string().min(1).optional(),
  session_id: z.string().min(1).optional(),
  tool: z.string().min(1).optional(),
  kind: z.enum(['decision', 'call', 'secret']).optional(),
  decision: z.enum(['allow', 'deny']).optional(),
  outcome: z.enum(['ok', 'error', 'denied', 'cancelled', 'lost']).optional(),
  after: z.iso.datetime({ offset: true }).optional(),
  before: z.iso.datetime({ offset: true }).optional(),
  cursor: z.string().min(1).optional().describe('`next_cursor` of the previous page'),
  limit: z.coerce.number().int().min(1).max(500).default(100),
})

/** GET /v1/audit: the tenant's audit trail, newest first (docs/audit.md). */
export const auditRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/v1/audit', {
    schema: {
      tags: ['audit'],
      operationId: 'listAuditRecords',
      summary: "The tenant's audit trail: one record per permission decision and per finished call",
      querystring: AuditQuerySchema,
      response: {
        200: jsonResponse(
          'A page of records, newest first',
          z.object({ records: z.array(AuditRecordSchema), next_cursor: z.string().optional() }),
        ),
        ...problemResponses(400, 401),
      },
    },
    handler: async (request) => {
      const query = request.query
      if (query.cursor !== undefined && !CURSOR.test(query.cursor))
        throw new ApiError('invalid_cursor', 'The cursor is not one this API gave out: pass `next_cursor` as it was')
      const page = await app.audit.list({
        tenant: request.tenant,
        limit: query.limit,
        ...(query.run_id === undefined ? {} : { runId: query.run_id }),
        ...(query.session_id === undefined ? {} : { sessionId: query.session_id }),
        ...(query.tool === undefined ? {} : { tool: query.tool }),
        ...(query.kind === undefined ? {} : { kind: query.kind }),
        ...(query.decision === undefined ? {} : { decision: query.decision }),
        ...(query.outcome === undefined ? {} : { outcome: query.outcome }),
        ...(query.after === undefined ? {} : { after: Date.parse(query.after) }),
        ...(query.before === undefined ? {} : { before: Date.parse(query.before) }),
        ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      })
      return { records: page.records, ...(page.next === undefined ? {} : { next_cursor: page.next }) }
    },
  })
}
