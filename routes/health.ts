import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { jsonResponse } from './responses.js'
import { McpServerStateSchema, toMcpServerStateBody } from './v1/mcp-server-schemas.js'

const StatusSchema = z.object({ status: z.string() })
const ReadinessSchema = StatusSchema.extend({
  reason: z.string().optional().describe('Why the shared store is unavailable (Redis unreachable, volume mismatch)'),
  mcp_servers: z.array(McpServerStateSchema).describe('A failed MCP server does not make the service unready'),
})

/** Liveness and readiness probes; readiness fails while the server drains for shutdown. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', {
    schema: {
      tags: ['operations'],
      summary: 'Liveness',
      security: [],
      response: { 200: jsonResponse('Alive', StatusSchema) },
    },
    handler: async () => ({ status: 'ok' }),
  })

  app.get('/readyz', {
    schema: {
      tags: ['operations'],
      summary: 'Readiness: 503 while shutting down or while the shared store (Redis) is unreachable',
      security: [],
      response: {
        200: jsonResponse('Ready', ReadinessSchema),
        503: jsonResponse('Draining for shutdown, or the shared store is unavailable', ReadinessSchema),
      },
    },
    handler: async (_request, reply) => {
      const draining = app.runManager.shuttingDown
      const storeProblem = app.coordination?.unavailableReason()
      const body = {
        status: draining ? 'shutting_down' : storeProblem !== undefined ? 'store_unavailable' : 'ready',
        ...(storeProblem === undefined ? {} : { reason: storeProblem }),
        mcp_servers: app.mcpServers.states().map(toMcpServerStateBody),
      }
      return reply.code(body.status === 'ready' ? 200 : 503).send(body)
    },
  })
}
