import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import type { McpServerState } from '../../src/mcp/client/mcp-server-state.js'
import { jsonResponse, problemResponses } from '../responses.js'

export const McpServerStateSchema = z
  .object({
    name: z.string(),
    type: z.enum(['stdio', 'http']),
    status: z.enum(['connecting', 'connected', 'failed', 'reconnecting']),
    tool_count: z.number().int(),
    last_error: z.string().optional(),
    connected_at: z.string().optional(),
    server_info: z.object({ name: z.string(), version: z.string() }).optional(),
  })
  .meta({ id: 'McpServerState' })

/** The manager's state in the API's snake_case, like every other field on the wire. */
export function toMcpServerStateBody(state: McpServerState): z.infer<typeof McpServerStateSchema> {
  return {
    name: state.name,
    type: state.type,
    status: state.status,
    tool_count: state.toolCount,
    ...(state.lastError === undefined ? {} : { last_error: state.lastError }),
    ...(state.connectedAt === undefined ? {} : { connected_at: state.connectedAt }),
    ...(state.serverInfo === undefined ? {} : { server_info: state.serverInfo }),
  }
}

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
    handler: async () => ({ servers: app.mcpServers.states().map(toMcpServerStateBody) }),
  })
}
