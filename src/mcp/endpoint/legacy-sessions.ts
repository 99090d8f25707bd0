import { randomUUID } from 'node:crypto'
import {
  type CancelledNotification,
  type InitializeRequest,
  isInitializeRequest,
  isJSONRPCNotification,
  type LegacyHttpHandler,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import { ApiError } from '../../errors/api-error.js'
import type { SessionService } from '../../sessions/session-service.js'
import type { McpSessionRecord, McpSessionStore } from '../../stores/mcp-session-store.js'
import type { RunCoordination } from '../../stores/run-coordination.js'
import { jsonRpcErrorResponse } from './json-rpc-error-response.js'
import type { BoundCaller } from './mcp-endpoint-backend.js'
import type { SessionCalls } from './session-calls.js'

/** Who is calling `/mcp`: the authenticated tenant and, at initialize, an optional session to run in. */
export type McpCaller = Omit<BoundCaller, 'mcpSessionId'>

/** How long a client refused by an MCP session cap waits: sessions free as they close or idle out. */
const MCP_SESSION_CAP_RETRY_AFTER_SECONDS = 5

export type LegacySessionsOptions = {
  store: McpSessionStore
  sessions: Pick<SessionService, 'get' | 'create' | 'delete'>
  calls: SessionCalls
  idleTtlMs: number
  limits?: { maxSessions: number; maxSessionsPerTenant: number } | undefined
  now: () => number
  /** Serves one POST with a fresh server for `caller` (the SDK's stateless 2025-era leg). */
  serve: (request: Request, caller: BoundCaller, parsedBody: unknown) => ReturnType<LegacyHttpHandler>
  /** A fresh server for `caller`, for a notification stream. */
  serverFor: (caller: BoundCaller) => Server
  /** With Redis: tells the other instances about a cancel this one cannot place. */
  coordination?: Pick<RunCoordination, 'announce' | 'onAnnouncement'> | undefined
}

/** The announcement of a `notifications/cancelled` for a call some other instance may be running. */
type CallCancelled = { type: 'mcp.call.cancelled'; mcpSessionId: string; requestId: string | number; reason: string }
const isCallCancelled = (message: unknown): message is CallCancelled =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'mcp.call.cancelled'

type Listener = { server: Server; transport: WebStandardStreamableHTTPServerTransport }

/**
 * The 2025-era sessions of `/mcp` (docs/adr/0341-older-mcp-sessions-in-the-stores.md). The
 * session is a record in the stores (memory, or Redis shared by every instance), never a live
 * object: each POST is served by a fresh server bound to the record's tenant and toolexec
 * session, so any instance serves any session and no load balancer needs stickiness. What cannot
 * move stays on the instance that holds it: the GET notification stream, and the lane and cancel
 * handle of a running call (session-calls.ts).
 */
export function createLegacySessions(options: LegacySessionsOptions) {
  const { store, sessions, calls } = options
  const listeners = new Map<string, Listener>()
  const stopHearing = options.coordination?.onAnnouncement((message) => {
    if (isCallCancelled(message)) calls.cancel(message.mcpSessionId, message.requestId, message.reason)
  })

  async function checkLimits(tenant: string): Promise<void> {
    const limits = options.limits
    if (!limits) return
    const open = await store.count(tenant, options.now())
    const full =
      open.tenant >= limits.maxSessionsPerTenant
        ? `this tenant has ${open.tenant} MCP sessions open (TOOLEXEC_MAX_MCP_SESSIONS_PER_TENANT=${limits.maxSessionsPerTenant})`
        : open.total >= limits.maxSessions
          ? `the service has ${open.total} MCP sessions open (TOOLEXEC_MAX_MCP_SESSIONS=${limits.maxSessions})`
          : undefined
    if (full !== undefined) {
      throw new ApiError(
        'too_many_sessions',
        `No new MCP session: ${full}; close sessions you no longer use (DELETE /mcp), or retry`,
        { retryAfterSeconds: MCP_SESSION_CAP_RETRY_AFTER_SECONDS },
      )
    }
  }

  /**
   * `initialize`: binds a new MCP session to the tenant and to one toolexec session (the
   * `session_id` given, or one created now); dropped again when the server refuses the handshake.
   */
  async function open(request: Request, caller: McpCaller, body: InitializeRequest): Promise<Response> {
    await checkLimits(caller.tenant)
    if (caller.sessionId !== undefined) await sessions.get(caller.tenant, caller.sessionId)
    const sessionId = caller.sessionId ?? (await sessions.create(caller.tenant)).sessionId
    const dropOwned = () =>
      caller.sessionId === undefined ? sessions.delete(caller.tenant, sessionId).catch(() => {}) : undefined
    const record: McpSessionRecord = {
      mcpSessionId: `mcp_${randomUUID()}`,
      tenant: caller.tenant,
      sessionId,
      ownsSession: caller.sessionId === undefined,
      protocolVersion: body.params.protocolVersion,
      clientInfo: body.params.clientInfo,
      clientCapabilities: body.params.capabilities,
    }
    // Stored before the handshake, so concurrent initializes count each other against the caps.
    await store.create(record, options.idleTtlMs, options.now())
    const drop = async () => {
      await store.delete(caller.tenant, record.mcpSessionId).catch(() => undefined)
      await dropOwned()
    }
    try {
      const response = await options.serve(request, { ...caller, ...record }, body)
      if (response.status !== 200) {
        await drop()
        return response
      }
      const headers = new Headers(response.headers)
      headers.set('mcp-session-id', record.mcpSessionId)
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers })
    } catch (error) {
      await drop()
      throw error
    }
  }

  /** GET: the session's notification stream (`tools/list_changed`), held by this instance. */
  async function listen(request: Request, record: McpSessionRecord): Promise<Response> {
    const server = options.serverFor({ tenant: record.tenant, sessionId: record.sessionId })
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined })
    await server.connect(transport)
    const response = await transport.handleRequest(request)
    const key = `${record.mcpSessionId}\u0000${randomUUID()}`
    const end = () => {
      listeners.delete(key)
      void Promise.allSettled([transport.close(), server.close()])
    }
    if (response.status !== 200 || request.signal.aborted) end()
    else {
      listeners.set(key, { server, transport })
      request.signal.addEventListener('abort', end, { once: true })
    }
    return response
  }

  /** DELETE: ends the session everywhere, and the toolexec session it created. */
  async function close(tenant: string, mcpSessionId: string): Promise<Response> {
    const record = await store.delete(tenant, mcpSessionId)
    if (!record) return jsonRpcErrorResponse(404, 'Session not found')
    for (const [key, listener] of listeners) {
      if (key.startsWith(`${mcpSessionId}\u0000`)) {
        listeners.delete(key)
        void Promise.allSettled([listener.transport.close(), listener.server.close()])
      }
    }
    if (record.ownsSession) await sessions.delete(tenant, record.sessionId).catch(() => {})
    return new Response(null, { status: 200 })
  }

  /**
   * A `notifications/cancelled` comes as a request of its own, which the balancer may send to
   * another instance than the one running the call: cancelled here if the call runs here, else
   * announced to every instance (docs/adr/0341).
   */
  async function cancelCalls(mcpSessionId: string, body: unknown): Promise<void> {
    for (const message of Array.isArray(body) ? body : [body]) {
      if (!isJSONRPCNotification(message) || message.method !== 'notifications/cancelled') continue
      const { requestId, reason = 'cancelled' } = (message as CancelledNotification).params
      if (requestId === undefined || calls.cancel(mcpSessionId, requestId, reason)) continue
      const announcement: CallCancelled = { type: 'mcp.call.cancelled', mcpSessionId, requestId, reason }
      await options.coordination?.announce(announcement).catch(() => undefined)
    }
  }

  async function handle(request: Request, caller: McpCaller, body: unknown): Promise<Response> {
    const mcpSessionId = request.headers.get('mcp-session-id')
    if (mcpSessionId === null) {
      if (request.method === 'POST' && isInitializeRequest(body)) return open(request, caller, body)
      return jsonRpcErrorResponse(400, 'Bad Request: Mcp-Session-Id header is required')
    }
    if (request.method === 'DELETE') return close(caller.tenant, mcpSessionId)
    // Another tenant's session is as unknown as an expired one: the client starts over.
    const record = await store.touch(caller.tenant, mcpSessionId, options.idleTtlMs, options.now())
    if (!record) return jsonRpcErrorResponse(404, 'Session not found')
    if (request.method === 'GET') return listen(request, record)
    if (request.method !== 'POST') return jsonRpcErrorResponse(405, 'Method not allowed.')
    await cancelCalls(mcpSessionId, body)
    return options.serve(request, { ...caller, sessionId: record.sessionId, mcpSessionId }, body)
  }

  return {
    handle,
    /** Tells the notification streams held here that the tool list changed. */
    toolsChanged(): void {
      for (const listener of listeners.values()) listener.server.sendToolListChanged().catch(() => {})
    },
    get streamCount() {
      return listeners.size
    },
    async close(): Promise<void> {
      stopHearing?.()
      const open = [...listeners.values()]
      listeners.clear()
      await Promise.allSettled(open.flatMap((listener) => [listener.transport.close(), listener.server.close()]))
    },
  }
}
