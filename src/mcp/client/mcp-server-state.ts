export type McpServerStatus = 'connecting' | 'connected' | 'failed' | 'reconnecting'

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
