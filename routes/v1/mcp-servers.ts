import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { jsonResponse, problemResponses } from '../responses.js'
import { McpServerStateSchema, toMcpServerStateBody } from './mcp-server-schemas.js'

/** GET /v1/mcp/servers: the MCP servers of the settings file and how their connections are doing. */
export const mcpServersRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get('/v1/mcp/servers', {
    schema: {
      tags: ['tools'],
      operationId: 'listMcpServers',
      summary: 'State of the configured MCP servers',
      response: {
        200: jsonResponse(
          'One entry per server in the settings file',
          z.object({ servers: z.array(McpServerStateSchema) }),
        ),
        ...problemResponses(401),
      },
    },
    handler: async () => ({ servers: app.mcpServers.states().map(toMcpServerStateBody) }),
  })
}
