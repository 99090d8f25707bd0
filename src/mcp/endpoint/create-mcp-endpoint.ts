import {
  type AuthInfo,
  createMcpHandler,
  isLegacyRequest,
  legacyStatelessFallback,
  type McpHandlerRequestOptions,
  type McpRequestContext,
} from '@modelcontextprotocol/server'
import { isApiError } from '../../errors/api-error.js'
import type { SecretKey } from '../../secrets/secret-key.js'
import type { SessionService } from '../../sessions/session-service.js'
import type { McpSessionStore } from '../../stores/mcp-session-store.js'
import type { RunCoordination } from '../../stores/run-coordination.js'
import { createToolexecMcpServer } from './create-toolexec-mcp-server.js'
import { jsonRpcErrorResponse } from './json-rpc-error-response.js'
import { createLegacySessions, type McpCaller } from './legacy-sessions.js'
import { createMcpAskCodec } from './mcp-ask-state.js'
import { type BoundCaller, createEndpointBackend, type EndpointDependencies } from './mcp-endpoint-backend.js'
import { createSessionCalls } from './session-calls.js'

export type { McpCaller } from './legacy-sessions.js'

export type McpEndpointOptions = EndpointDependencies & {
  sessions: Pick<SessionService, 'get' | 'contextFor' | 'defaultPermissionContext' | 'create' | 'delete'>
  /** Where 2025-era MCP sessions live: this instance's memory, or Redis shared by all (docs/adr/0341). */
  mcpSessions: McpSessionStore
  serverInfo: { name: string; version: string }
  /** An MCP session with no request for this long ends. */
  idleTtlMs: number
  /** Caps on open MCP sessions, in all and per tenant (docs/adr/0234-session-caps.md); absent: none. */
  limits?: { maxSessions: number; maxSessionsPerTenant: number } | undefined
  /** With Redis: how a cancel reaches the instance running the call. */
  coordination?: Pick<RunCoordination, 'announce' | 'onAnnouncement'> | undefined
  now?: () => number
  onError?: (error: Error) => void
  /**
   * Asks raised by a 2026-07-28 call go to the client as input requests, their state sealed with
   * a key derived from `secretKey` (a random one per process without it) and valid for `ttlMs`
   * (docs/adr/0353, 0355). Absent: every ask is denied, as before.
   */
  inputRequests?: { secretKey: SecretKey | undefined; ttlMs: number } | undefined
}

/** The caller travels to the per-request server factory as the request's auth info, the SDK's pass-through. */
const CALLER_KEY = 'toolexec/caller'
const authInfoOf = (caller: BoundCaller): AuthInfo => ({
  token: '',
  clientId: caller.tenant,
  scopes: [],
  extra: { [CALLER_KEY]: caller },
})
function callerOf(context: { authInfo?: AuthInfo | undefined }): BoundCaller {
  const caller = context.authInfo?.extra?.[CALLER_KEY] as BoundCaller | undefined
  if (!caller) throw new Error('An /mcp request reached the server factory without its caller')
  return caller
}

/**
 * The `/mcp` Streamable HTTP endpoint on SDK v2 (docs/adr/0340-mcp-endpoint-on-sdk-v2.md), a
 * web-standard `fetch`. A 2026-07-28 request (it carries the `_meta` envelope) goes to the SDK's
 * stateless handler: no session, `server/discover`, the new error codes and headers, cancellation
 * by closing the stream. Anything else is 2025-era and goes to the sessions kept in the stores
 * (legacy-sessions.ts). Both are served by the same per-request server (create-toolexec-mcp-server.ts).
 */
export function createMcpEndpoint(options: McpEndpointOptions) {
  const now = options.now ?? Date.now
  const calls = createSessionCalls()
  // The state of an ask is bound to the tenant and the toolexec session it was raised in (docs/adr/0354).
  const codec =
    options.inputRequests &&
    createMcpAskCodec({
      ...options.inputRequests,
      bindingOf: (ctx) => {
        const caller = callerOf({ authInfo: ctx.http?.authInfo })
        return `${caller.tenant}\u0000${caller.sessionId ?? ''}`
      },
    })
  const serverFor = (caller: BoundCaller) =>
    createToolexecMcpServer(createEndpointBackend(options, calls, caller), options.serverInfo, codec)
  const factory = (context: McpRequestContext) => serverFor(callerOf(context))
  const onerror = options.onError ?? (() => {})
  const modern = createMcpHandler(factory, { legacy: 'reject', onerror })
  const legacyPost = legacyStatelessFallback(factory, onerror)
  const legacy = createLegacySessions({
    store: options.mcpSessions,
    sessions: options.sessions,
    calls,
    idleTtlMs: options.idleTtlMs,
    limits: options.limits,
    now,
    serve: (request, caller, parsedBody) => legacyPost(request, { authInfo: authInfoOf(caller), parsedBody }),
    serverFor,
    coordination: options.coordination,
  })

  async function serve(request: Request, caller: McpCaller, parsedBody: unknown): Promise<Response> {
    if (await isLegacyRequest(request, parsedBody)) return legacy.handle(request, caller, parsedBody)
    // Stateless: `session_id` in the URL names the toolexec session every call runs in (docs/adr/0342).
    if (caller.sessionId !== undefined) await options.sessions.get(caller.tenant, caller.sessionId)
    return modern.fetch(request, { authInfo: authInfoOf(caller), ...(parsedBody === undefined ? {} : { parsedBody }) })
  }

  return {
    /** Serves one HTTP request of `caller`; refusals the caller can fix are JSON-RPC errors with their status. */
    async fetch(request: Request, caller: McpCaller, options?: Pick<McpHandlerRequestOptions, 'parsedBody'>) {
      try {
        return await serve(request, caller, options?.parsedBody)
      } catch (error) {
        if (!isApiError(error)) throw error
        return jsonRpcErrorResponse(error.status, `${error.message} (${error.code})`, error.retryAfterSeconds)
      }
    },
    /** Tells the notification streams held here that the tool list changed (an MCP server of ours came or went). */
    toolsChanged(): void {
      legacy.toolsChanged()
      modern.notify.toolsChanged()
    },
    /** MCP sessions open (2025-era; the 2026 revision has none): in the stores, so on Redis those of all instances. */
    async openSessions(): Promise<number> {
      return (await options.mcpSessions.count('', now())).total
    },
    /** Notification streams this instance holds open. */
    get streamCount() {
      return legacy.streamCount
    },
    async close(): Promise<void> {
      await Promise.allSettled([legacy.close(), modern.close()])
    },
  }
}
