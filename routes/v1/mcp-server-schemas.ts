import { z } from 'zod'
import { MCP_SERVER_STATUSES, type McpServerState } from '../../src/mcp/client/mcp-server-state.js'

export const McpServerStateSchema = z
  .object({
    name: z.string(),
    type: z.enum(['stdio', 'http']),
    status: z
      .enum(MCP_SERVER_STATUSES)
      .describe(
        '`needs_authorization`: an admin completes the OAuth authorization once (POST /v1/mcp/servers/{name}/authorize); `unauthorized`: the credentials or token were refused (`last_error` says what to fix)',
      ),
    tool_count: z.number().int(),
    last_error: z.string().optional().describe('Why the last attempt failed, or what an admin must do'),
    connected_at: z.string().optional(),
    server_info: z.object({ name: z.string(), version: z.string() }).optional(),
    protocol_version: z.string().optional(),
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
    ...(state.protocolVersion === undefined ? {} : { protocol_version: state.protocolVersion }),
  }
}
