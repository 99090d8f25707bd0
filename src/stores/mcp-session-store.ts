/**
 * An older-revision (2025-era) MCP session of `/mcp`: what any instance needs to serve a request
 * that carries its `Mcp-Session-Id` (docs/adr/0341-older-mcp-sessions-in-the-stores.md). The
 * 2026-07-28 revision has no sessions and stores nothing.
 */
export type McpSessionRecord = {
  mcpSessionId: string
  tenant: string
  /** The toolexec session its calls run in. */
  sessionId: string
  /** True when the MCP session created that toolexec session, so ending one deletes the other. */
  ownsSession: boolean
  /** What the client sent at `initialize`. */
  protocolVersion: string
  clientInfo?: { name: string; version: string; [key: string]: unknown } | undefined
  clientCapabilities?: { [key: string]: unknown } | undefined
}

/** Open MCP sessions, expiring after an idle TTL restarted by every request. */
export interface McpSessionStore {
  create(record: McpSessionRecord, idleTtlMs: number, now: number): Promise<void>
  /** The tenant's session with its idle clock restarted; undefined when unknown, expired or another tenant's. */
  touch(tenant: string, mcpSessionId: string, idleTtlMs: number, now: number): Promise<McpSessionRecord | undefined>
  /** Ends the session; returns it when it was open. */
  delete(tenant: string, mcpSessionId: string): Promise<McpSessionRecord | undefined>
  /** Sessions open, of `tenant` and in all: what TOOLEXEC_MAX_MCP_SESSIONS(_PER_TENANT) count. */
  count(tenant: string, now: number): Promise<{ tenant: number; total: number }>
}
