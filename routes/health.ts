import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { jsonResponse } from './responses.js'
import { McpServerStateSchema, toMcpServerStateBody } from './v1/mcp-server-schemas.js'

const StatusSchema = z.object({ status: z.string() })
const ReadinessSchema = StatusSchema.extend({
  mcp_servers: z.array(McpServerStateSchema).describe('A failed MCP server does not make the service unready'),
})

/** Liveness and readiness probes; readiness fails while the server drains for shutdown. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/healthz', {
    schema: {
      tags: ['operations'],
      operationId: 'getHealth',
      summary: 'Liveness',
      security: [],
      response: { 200: jsonResponse('Alive', StatusSchema) },
    },
    handler: async () => ({ status: 'ok' }),
  })

  app.get('/readyz', {
    schema: {
      tags: ['operations'],
      operationId: 'getReadiness',
      summary: 'Readiness: 503 while shutting down',
      security: [],
      response: {
        200: jsonResponse('Ready', ReadinessSchema),
        503: jsonResponse('Draining for shutdown', ReadinessSchema),
      },
    },
    handler: async (_request, reply) => {
      const draining = app.runManager.shuttingDown
      const body = {
        status: draining ? 'shutting_down' : 'ready',
        mcp_servers: app.mcpServers.states().map(toMcpServerStateBody),
      }
      return reply.code(draining ? 503 : 200).send(body)
    },
  })
}
