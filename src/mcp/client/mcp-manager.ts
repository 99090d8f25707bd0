import { type Logger, SILENT_LOGGER } from '../../logging/logger.js'
import type { ServiceRecords } from '../../secrets/service-records.js'
import type { AnyTool } from '../../tool/tool.js'
import { type Environment, expandServerConfig } from './expand-env-vars.js'
import type { CallTimeouts } from './mcp-errors.js'
import { createServerConnection, type ServerConnection } from './mcp-server-connection.js'
import type { McpServerState } from './mcp-server-state.js'
import { type McpServersInput, parseMcpServers } from './mcp-settings-schema.js'
import { createOAuthFlows, type OAuthFlows } from './oauth/oauth-flows.js'
import type { SecretResolver } from './resolve-server-secrets.js'
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.js'

const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000
const DEFAULT_MCP_CALL_TIMEOUTS: CallTimeouts = { idleMs: 300_000, totalMs: 1_800_000 }

export type McpManagerOptions = {
  /** The `mcpServers` settings, parsed here (a bad entry throws McpSettingsError naming the field). */
  servers: McpServersInput
  /** How this client introduces itself to servers. */
  clientInfo: { name: string; version: string }
  logger?: Logger
  retry?: Partial<RetryPolicy>
  /** Deadline for one connection attempt (spawn, initialize, first tools/list). */
  connectTimeoutMs?: number
  callTimeouts?: Partial<CallTimeouts>
  /** Where `${VAR}` in the settings is looked up; the process environment by default. */
  environment?: Environment
  /** Where `${secret:NAME}` in headers, env and `oauth` is looked up, at each connection attempt. */
  resolveSecret?: SecretResolver
  /** Where OAuth tokens live (the secret store's service records); without it `oauth` servers cannot start. */
  oauthRecords?: ServiceRecords
  /** The service's address as browsers reach it: the authorization-code redirect is `<publicUrl>/v1/mcp/oauth/callback`. */
  publicUrl?: string | undefined
}

type McpToolsListener = (tools: readonly AnyTool[]) => void

export type McpManager = {
  /** Resolves when every server's first connection attempt has settled; never rejects. */
  ready(): Promise<void>
  states(): McpServerState[]
  /** The tools of every server currently contributing, in settings order, names unique. */
  tools(): readonly AnyTool[]
  /** Told each time the list `tools()` returns changes; returns the unsubscribe function. */
  onToolsChanged(listener: McpToolsListener): () => void
  /** Failed servers try again from scratch (a secret was written: docs/adr/0332-secret-references.md). */
  retryFailed(): void
  /** The OAuth authorization-code flow an admin completes in a browser (docs/adr/0423-authorization-state.md). */
  oauth: OAuthFlows
  close(): Promise<void>
}

/**
 * Connects to every configured MCP server at once and keeps the connections alive: bounded
 * exponential backoff at start, reconnection when a server goes away, tool lists refreshed on
 * `tools/list_changed`. One failing server never affects the others.
 */
export function createMcpManager(options: McpManagerOptions): McpManager {
  if (!options?.clientInfo?.name) throw new TypeError('createMcpManager: `clientInfo.name` is required')
  const logger = options.logger ?? SILENT_LOGGER
  const retry = { ...DEFAULT_RETRY_POLICY, ...options.retry }
  const callTimeouts = { ...DEFAULT_MCP_CALL_TIMEOUTS, ...options.callTimeouts }
  const environment = options.environment ?? process.env
  const listeners = new Set<McpToolsListener>()
  let combined: readonly AnyTool[] = []
  let closed = false

  function recombine(): void {
    const seen = new Set<string>()
    const next: AnyTool[] = []
    for (const connection of connections) {
      for (const tool of connection.tools()) {
        // Two server names can normalise to the same prefix; the server listed first keeps the name.
        if (seen.has(tool.name)) {
          logger.warn({ server: connection.name, tool: tool.name }, 'MCP tool name already taken by another server')
          continue
        }
        seen.add(tool.name)
        next.push(tool)
      }
    }
    combined = next
    for (const listener of [...listeners]) {
      try {
        listener(combined)
      } catch (error) {
        logger.error({ error: String(error) }, 'MCP tools listener threw')
      }
    }
  }

  const connections: ServerConnection[] = []
  const flows = createOAuthFlows({
    records: options.oauthRecords,
    resolveSecret: options.resolveSecret,
    publicUrl: options.publicUrl,
    connection: (name) => connections.find((connection) => connection.name === name),
  })
  for (const [name, raw] of Object.entries(parseMcpServers(options.servers))) {
    const { config, missing } = expandServerConfig(raw, environment)
    const oauth = flows.forServer(name, config)
    const configError = missing.length > 0 ? `missing environment variables: ${missing.join(', ')}` : oauth?.configError
    connections.push(
      createServerConnection({
        name,
        config,
        ...(configError === undefined ? {} : { configError }),
        oauth: oauth?.oauth,
        resolveSecret: options.resolveSecret,
        clientInfo: { name: options.clientInfo.name, version: options.clientInfo.version },
        logger,
        retry,
        connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS,
        callTimeouts,
        onToolsChanged: () => {
          if (!closed) recombine()
        },
      }),
    )
  }
  // Connections may have changed their tools before the array above was complete.
  recombine()

  return {
    ready: async () => {
      await Promise.all(connections.map((connection) => connection.settled))
    },
    states: () => connections.map((connection) => connection.state()),
    tools: () => combined,
    onToolsChanged(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    retryFailed() {
      for (const connection of connections) connection.retryIfFailed()
    },
    oauth: flows,
    async close() {
      closed = true
      listeners.clear()
      flows.close()
      await Promise.all(connections.map((connection) => connection.close()))
    },
  }
}
