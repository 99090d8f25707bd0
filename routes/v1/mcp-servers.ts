import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { jsonResponse, problemResponses } from '../responses.js'

export const McpServerStateSchema = z
  .object({
    name: z.string(),
    type: z.enum(['stdio', 'http']),
    status: z.enum(['connecting', 'connected', 'failed', 'reconnecting']),
    toolCount: z.number().int(),
    lastError: z.string().optional(),
    connectedAt: z.string().optional(),
    serverInfo: z.object({ name: z.string(), version: z.string() }).optional(),
  })
  .meta({ id: 'McpServerState' })

/** GET /v1/mcp/servers: the MCP servers of the settings file and how their connections are doing. */
export const mcpServersRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/v1/mcp/servers', {
    schema: {
      tags: ['tools'],
      summary: 'State of the configured MCP servers',
      response: {
        200: jsonResponse(
          'One entry per server in the settings file',
          z.object({ servers: z.array(McpServerStateSchema) }),
        ),
        ...problemResponses(401),
      },
    },
    handler: async () => ({ servers: app.mcp.states() }),
  })
}
