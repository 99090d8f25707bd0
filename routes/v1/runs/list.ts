import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { RunStatusSchema } from '../../../src/events/run-event.js'
import { decodeRunCursor, encodeRunCursor } from '../../../src/runs/run-cursor.js'
import type { RunRecord } from '../../../src/stores/run-store.js'
import { jsonResponse, problemResponses } from '../../responses.js'
import { eventsUrl } from './run-views.js'

const OpenAskSchema = z.object({
  request_id: z.string(),
  tool_use_id: z.string(),
  tool: z.string(),
  opened_at: z.string(),
  expires_at: z.string(),
})

const RunSummarySchema = z
  .object({
    run_id: z.string(),
    status: RunStatusSchema,
    session_id: z.string(),
    mode: z.enum(['wait', 'async', 'stream']),
    tools: z.array(z.string()).describe('The distinct tool names of its blocks'),
    open_asks: z.array(OpenAskSchema).describe('Asks waiting for an answer now'),
    stalled_since: z
      .string()
      .optional()
      .describe(
        'Worker mode: since when the Managed Agents session this run serves has waited on calls of ours with none running',
      ),
    created_at: z.string(),
    finished_at: z.string().optional(),
    events_url: z.string(),
  })
  .meta({ id: 'RunSummary' })

const ListRunsQuerySchema = z.object({
  status: RunStatusSchema.optional(),
  session_id: z.string().min(1).optional(),
  has_open_asks: z.stringbool().optional().describe('true: only runs with asks waiting; false: only runs without'),
  stalled: z
    .stringbool()
    .optional()
    .describe('true: only runs whose Managed Agents session is stalled (worker mode); false: only the others'),
  created_after: z.iso.datetime({ offset: true }).optional(),
  created_before: z.iso.datetime({ offset: true }).optional(),
  cursor: z.string().min(1).optional().describe('`next_cursor` of the previous page'),
  limit: z.coerce.number().int().min(1).max(200).default(50),
})

const toSummary = (record: RunRecord) => ({
  run_id: record.runId,
  status: record.status,
  session_id: record.sessionId,
  mode: record.mode,
  tools: record.tools ?? [],
  open_asks: record.status === 'running' ? (record.openAsks ?? []) : [],
  ...(record.stalledSince === undefined ? {} : { stalled_since: record.stalledSince }),
  created_at: record.createdAt,
  ...(record.finishedAt === undefined ? {} : { finished_at: record.finishedAt }),
  events_url: eventsUrl(record.runId),
})

/** GET /v1/runs: what an approver (or a dashboard) looks through to find runs waiting for them. */
export const listRunsRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/v1/runs', {
    schema: {
      tags: ['runs'],
      operationId: 'listRuns',
      summary: "The tenant's runs, newest first",
      description:
        'Filters combine; `next_cursor` is present while more runs may follow. On Redis every instance answers the same.',
      querystring: ListRunsQuerySchema,
      response: {
        200: jsonResponse(
          'A page of runs',
          z.object({ runs: z.array(RunSummarySchema), next_cursor: z.string().optional() }),
        ),
        ...problemResponses(400, 401),
      },
    },
    handler: async (request) => {
      const query = request.query
      const page = await app.stores.runs.list({
        tenant: request.tenant,
        limit: query.limit,
        ...(query.status === undefined ? {} : { status: query.status }),
        ...(query.session_id === undefined ? {} : { sessionId: query.session_id }),
        ...(query.has_open_asks === undefined ? {} : { hasOpenAsks: query.has_open_asks }),
        ...(query.stalled === undefined ? {} : { stalled: query.stalled }),
        ...(query.created_after === undefined ? {} : { createdAfter: Date.parse(query.created_after) }),
        ...(query.created_before === undefined ? {} : { createdBefore: Date.parse(query.created_before) }),
        ...(query.cursor === undefined ? {} : { cursor: decodeRunCursor(query.cursor) }),
      })
      return {
        runs: page.records.map(toSummary),
        ...(page.next ? { next_cursor: encodeRunCursor(page.next) } : {}),
      }
    },
  })
}
