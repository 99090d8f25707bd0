/**
 * `needs_authorization`: an admin has to complete the OAuth authorization-code flow once;
 * `unauthorized`: the authorization server or the MCP server refused our credentials or token
 * (docs/adr/0424-oauth-server-states.md). Both wait for an admin, like `failed`.
 */
export type McpServerStatus =
  | 'connecting'
  | 'connected'
  | 'failed'
  | 'reconnecting'
  | 'needs_authorization'
  | 'unauthorized'

export const MCP_SERVER_STATUSES = [
  'connecting',
  'connected',
  'failed',
  'reconnecting',
  'needs_authorization',
  'unauthorized',
] as const satisfies readonly McpServerStatus[]

/** One server as `/readyz` and `GET /v1/mcp/servers` report it. */
export type McpServerState = {
  name: string
  type: 'stdio' | 'http'
  status: McpServerStatus
  /** Tools this server contributes to the pool right now. */
  toolCount: number
  /** Why the last attempt failed or the last connection was lost (kept after a reconnect). */
  lastError?: string
  /** ISO time of the current (or last) successful connection. */
  connectedAt?: string
  serverInfo?: { name: string; version: string }
  /** The MCP revision the current (or last) connection negotiated, e.g. `2026-07-28`. */
  protocolVersion?: string
}
