import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { startSweeper } from '../../async/start-sweeper.js'
import { ApiError, isApiError } from '../../errors/api-error.js'
import type { Logger } from '../../logging/logger.js'
import type { SessionService } from '../../sessions/session-service.js'
import { createToolexecMcpServer } from './create-toolexec-mcp-server.js'
import { createEndpointBackend, type EndpointDependencies } from './mcp-endpoint-backend.js'

export type McpEndpointOptions = Omit<EndpointDependencies, 'sessions'> & {
  sessions: Pick<SessionService, 'get' | 'contextFor' | 'create' | 'delete'>
  serverInfo: { name: string; version: string }
  /** An MCP session with no request and no running call for this long is closed. */
  idleTtlMs: number
  /** Caps on open MCP sessions, in all and per tenant (docs/adr/0234-session-caps.md); absent: none. */
  limits?: { maxSessions: number; maxSessionsPerTenant: number } | undefined
  now?: () => number
}

/** Who is calling `/mcp`: the authenticated tenant and, at initialize, an optional session to run in. */
export type McpCaller = { tenant: string; sessionId?: string; logger?: Logger }

/** How long a client refused by an MCP session cap waits: sessions free as they close or idle out. */
const MCP_SESSION_CAP_RETRY_AFTER_SECONDS = 5

type McpSession = {
  tenant: string
  transport: StreamableHTTPServerTransport
  server: Server
  lastUsedAt: number
  inFlight: () => number
  /** The toolexec session this MCP session created, if any: it is deleted when the MCP session ends. */
  ownedSessionId: () => Promise<string> | undefined
}

function sendJsonRpcError(response: ServerResponse, status: number, message: string, retryAfterSeconds?: number): void {
  response.writeHead(status, {
    'content-type': 'application/json',
    ...(retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) }),
  })
  response.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

/**
 * The `/mcp` Streamable HTTP endpoint, session-based (ADR 0056). `initialize` opens an MCP
 * session bound to the tenant and to one toolexec session (the `session_id` given, or one
 * created on first use), so Read → Edit works across calls. Sessions live in this instance's
 * memory: an unknown session id gets 404 and the client starts a new one.
 */
export function createMcpEndpoint(options: McpEndpointOptions) {
  const { sessions } = options
  const now = options.now ?? Date.now
  const live = new Map<string, McpSession>()

  async function retire(id: string): Promise<void> {
    const session = live.get(id)
    if (!session) return
    live.delete(id)
    await Promise.allSettled([session.transport.close(), session.server.close()])
    const owned = await session.ownedSessionId()?.catch(() => undefined)
    if (owned) await sessions.delete(session.tenant, owned).catch(() => {})
  }

  /** Refuses a new MCP session past a cap: each holds a server and a transport in this instance's memory. */
  function checkLimits(tenant: string): void {
    const limits = options.limits
    if (!limits) return
    let own = 0
    for (const session of live.values()) if (session.tenant === tenant) own += 1
    const full =
      own >= limits.maxSessionsPerTenant
        ? `this tenant has ${own} MCP sessions open (TOOLEXEC_MAX_MCP_SESSIONS_PER_TENANT=${limits.maxSessionsPerTenant})`
        : live.size >= limits.maxSessions
          ? `the service has ${live.size} MCP sessions open (TOOLEXEC_MAX_MCP_SESSIONS=${limits.maxSessions})`
          : undefined
    if (full !== undefined) {
      throw new ApiError(
        'too_many_sessions',
        `No new MCP session: ${full}; close sessions you no longer use (DELETE /mcp), or retry`,
        { retryAfterSeconds: MCP_SESSION_CAP_RETRY_AFTER_SECONDS },
      )
    }
  }

  async function open(request: IncomingMessage, response: ServerResponse, body: unknown, caller: McpCaller) {
    checkLimits(caller.tenant)
    if (caller.sessionId !== undefined) await sessions.get(caller.tenant, caller.sessionId)
    let ownedSessionId: Promise<string> | undefined
    const sessionId = () => {
      if (caller.sessionId !== undefined) return Promise.resolve(caller.sessionId)
      ownedSessionId ??= sessions.create(caller.tenant).then((record) => record.sessionId)
      return ownedSessionId
    }
    const bound = createEndpointBackend(options, {
      tenant: caller.tenant,
      sessionId,
      ...(caller.logger ? { logger: caller.logger } : {}),
    })
    const server = createToolexecMcpServer(bound.backend, options.serverInfo)
    let opened = false
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => `mcp_${randomUUID()}`,
      onsessioninitialized: (id) => {
        opened = true
        live.set(id, {
          tenant: caller.tenant,
          transport,
          server,
          lastUsedAt: now(),
          inFlight: bound.inFlight,
          // Read when the session ends: the toolexec session is only created by the first call.
          ownedSessionId: () => ownedSessionId,
        })
      },
      onsessionclosed: (id) => retire(id),
    })
    await server.connect(transport)
    await transport.handleRequest(request, response, body)
    // Anything but an initialize without a session id was refused by the transport: keep nothing.
    if (!opened) await Promise.allSettled([transport.close(), server.close()])
  }

  async function handle(request: IncomingMessage, response: ServerResponse, body: unknown, caller: McpCaller) {
    try {
      const id = request.headers['mcp-session-id']
      if (typeof id !== 'string') return await open(request, response, body, caller)
      const session = live.get(id)
      // Another tenant's session is as unknown as an expired one.
      if (!session || session.tenant !== caller.tenant) return sendJsonRpcError(response, 404, 'Session not found')
      session.lastUsedAt = now()
      await session.transport.handleRequest(request, response, body)
    } catch (error) {
      if (!isApiError(error) || response.headersSent) throw error
      sendJsonRpcError(response, error.status, `${error.message} (${error.code})`, error.retryAfterSeconds)
    }
  }

  function sweep(): void {
    for (const [id, session] of live) {
      if (session.inFlight() === 0 && now() - session.lastUsedAt > options.idleTtlMs) void retire(id)
    }
  }
  // sweep() catches nothing because it cannot throw: retire() handles its own failures.
  const stopSweeper = startSweeper(sweep, Math.min(options.idleTtlMs, 60_000), () => {})

  return {
    handle,
    /** Tells every open session its tool list changed (an MCP server of ours came or went). */
    toolsChanged(): void {
      for (const session of live.values()) session.server.sendToolListChanged().catch(() => {})
    },
    get sessionCount() {
      return live.size
    },
    async close(): Promise<void> {
      stopSweeper()
      await Promise.all([...live.keys()].map(retire))
    },
  }
}
