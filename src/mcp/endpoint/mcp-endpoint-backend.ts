import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { isApiError } from '../../errors/api-error.js'
import type { Logger } from '../../logging/logger.js'
import type { ToolUseBlock } from '../../messages/content-blocks.js'
import type { PermissionPrompter } from '../../permissions/permission-prompter.js'
import type { ToolPool } from '../../registry/tool-pool.js'
import type { RunManager } from '../../runs/run-manager.js'
import { type InputLimits, requestFromMcpCall } from '../../runs/run-request.js'
import type { SessionService } from '../../sessions/session-service.js'
import type { ToolexecMcpBackend, ToolexecMcpCallOutcome } from './create-toolexec-mcp-server.js'
import { createMcpAskPrompter } from './mcp-ask-prompter.js'
import type { SessionCalls } from './session-calls.js'

export type EndpointDependencies = {
  runManager: Pick<RunManager, 'start' | 'cancel' | 'subscribe'>
  sessions: Pick<SessionService, 'get' | 'contextFor' | 'defaultPermissionContext'>
  toolPool: Pick<ToolPool, 'schemaDefinitionsFor'>
  inputLimits: InputLimits
}

/**
 * Who one `/mcp` request acts for. `sessionId`: the toolexec session its calls run in (none: each
 * call runs in a session of its own, as `POST /v1/runs` without one). `mcpSessionId`: the
 * older-revision MCP session it belongs to, whose calls run one at a time on this instance.
 */
export type BoundCaller = {
  tenant: string
  logger?: Logger
  sessionId?: string
  mcpSessionId?: string
  /** The name of the caller's key, and whether it may answer asks (docs/adr/0240-key-roles.md). */
  keyName?: string
  mayAnswerAsks?: boolean
}

type CallOptions = Parameters<ToolexecMcpBackend['callTool']>[1]

/** Faults the caller can fix (unknown session, oversized input, draining) become JSON-RPC errors. */
function asProtocolError(error: unknown): never {
  if (isApiError(error)) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `${error.message} (${error.code})`)
  throw error
}

/** Waits between tries at a session another instance's call still holds: it frees within one call. */
const BUSY_RETRY_MS = [20, 50, 100, 200, 400, 800, 1000] as const
const BUSY_RETRY_LIMIT_MS = 5 * 60 * 1000

/**
 * The service side of one `/mcp` request. `tools/call` is a one-block run in `wait` mode through
 * the run manager: same auth, session, permission rules and hooks as `POST /v1/runs`, and an ask is
 * denied unless the client's user can answer it (mcp-asks.ts).
 */
export function createEndpointBackend(dependencies: EndpointDependencies, calls: SessionCalls, caller: BoundCaller) {
  const { runManager, sessions } = dependencies

  /**
   * Starts the run. Calls of one MCP session queue on one instance; behind a round-robin balancer
   * two of them can reach two instances, and the later finds the session held (`session_busy`):
   * it waits for the earlier to finish, as it would have on one instance (docs/adr/0341).
   */
  async function start(block: ToolUseBlock, signal: AbortSignal, prompter: PermissionPrompter) {
    const request = requestFromMcpCall(block, caller, dependencies.inputLimits, prompter)
    const began = Date.now()
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await runManager.start(request)
      } catch (error) {
        const busy = isApiError(error) && error.code === 'session_busy'
        if (!busy || signal.aborted || Date.now() - began > BUSY_RETRY_LIMIT_MS) throw error
        const wait = BUSY_RETRY_MS[Math.min(attempt, BUSY_RETRY_MS.length - 1)]
        await new Promise((resolve) => setTimeout(resolve, wait))
      }
    }
  }

  async function runOne(
    block: ToolUseBlock,
    call: CallOptions,
    cancelled: AbortSignal,
  ): Promise<ToolexecMcpCallOutcome> {
    const signal = AbortSignal.any([call.signal, cancelled])
    if (signal.aborted)
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, 'The call was cancelled before it started')
    // Only a key that may answer asks gets to answer them as an MCP client (docs/adr/0353).
    const asks = createMcpAskPrompter({
      canAsk: call.ask?.clientCanAnswer === true && caller.mayAnswerAsks === true,
      ...(caller.keyName === undefined ? {} : { keyName: caller.keyName }),
      ...(call.ask?.answer === undefined ? {} : { answer: call.ask.answer }),
    })
    const handle = await start(block, signal, asks.prompter)
    const cancel = () => void runManager.cancel(caller.tenant, handle.runId).catch(() => {})
    signal.addEventListener('abort', cancel, { once: true })
    // Replays from the first event, so progress emitted before the subscription is not lost.
    const unsubscribe = await runManager.subscribe(caller.tenant, handle.runId, 0, (event) => {
      if (event.type === 'tool.progress') call.onProgress(event.data)
    })
    try {
      const record = await handle.finished
      const result = record.results[0]
      if (!result)
        throw new ProtocolError(ProtocolErrorCode.InternalError, `Run ${handle.runId} finished without a result`)
      const asked = asks.asked
      return { runId: handle.runId, result, blobs: record.blobs, ...(asked ? { asked } : {}) }
    } finally {
      unsubscribe()
      signal.removeEventListener('abort', cancel)
    }
  }

  const backend: ToolexecMcpBackend = {
    async listTools() {
      const context =
        caller.sessionId === undefined
          ? { permissionContext: sessions.defaultPermissionContext() }
          : sessions.contextFor(await sessions.get(caller.tenant, caller.sessionId).catch(asProtocolError))
      return dependencies.toolPool.schemaDefinitionsFor(context)
    },
    callTool(block, call) {
      const { mcpSessionId } = caller
      const outcome =
        mcpSessionId === undefined
          ? runOne(block, call, new AbortController().signal)
          : calls.run(mcpSessionId, call.requestId, (cancelled) => runOne(block, call, cancelled))
      return outcome.catch(asProtocolError)
    },
  }
  return backend
}
