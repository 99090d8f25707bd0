import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { createSerialQueue } from '../../async/serial-queue.js'
import { isApiError } from '../../errors/api-error.js'
import type { Logger } from '../../logging/logger.js'
import type { ToolUseBlock } from '../../messages/content-blocks.js'
import type { ToolPool } from '../../registry/tool-pool.js'
import type { RunManager } from '../../runs/run-manager.js'
import { type InputLimits, requestFromMcpCall } from '../../runs/run-request.js'
import type { SessionService } from '../../sessions/session-service.js'
import type { ToolexecMcpBackend, ToolexecMcpCallOutcome } from './create-toolexec-mcp-server.js'

export type EndpointDependencies = {
  runManager: Pick<RunManager, 'start' | 'cancel' | 'subscribe'>
  sessions: Pick<SessionService, 'get' | 'contextFor'>
  toolPool: Pick<ToolPool, 'schemaDefinitionsFor'>
  inputLimits: InputLimits
}

/** The caller one MCP session acts for; `sessionId` resolves the toolexec session its calls run in. */
export type BoundCaller = { tenant: string; logger?: Logger; sessionId: () => Promise<string> }

type CallOptions = Parameters<ToolexecMcpBackend['callTool']>[1]

/** Faults the caller can fix (unknown session, oversized input, draining) become JSON-RPC errors. */
function asProtocolError(error: unknown): never {
  if (isApiError(error)) throw new McpError(ErrorCode.InvalidRequest, `${error.message} (${error.code})`)
  throw error
}

/**
 * The service side of one MCP session. `tools/call` is a one-block run in `wait` mode through
 * the run manager: same auth, session, permission rules and hooks as `POST /v1/runs`, and an ask
 * with nobody to answer it is denied. A session runs one run at a time, so calls queue.
 */
export function createEndpointBackend(dependencies: EndpointDependencies, caller: BoundCaller) {
  const { runManager, sessions } = dependencies
  const calls = createSerialQueue()
  let inFlight = 0

  async function runOne(block: ToolUseBlock, call: CallOptions): Promise<ToolexecMcpCallOutcome> {
    if (call.signal.aborted) throw new McpError(ErrorCode.InvalidRequest, 'The call was cancelled before it started')
    const sessionId = await caller.sessionId()
    const handle = await runManager.start(requestFromMcpCall(block, { ...caller, sessionId }, dependencies.inputLimits))
    const cancel = () => void runManager.cancel(caller.tenant, handle.runId).catch(() => {})
    call.signal.addEventListener('abort', cancel, { once: true })
    // Replays from the first event, so progress emitted before the subscription is not lost.
    const unsubscribe = await runManager.subscribe(caller.tenant, handle.runId, 0, (event) => {
      if (event.type === 'tool.progress') call.onProgress(event.data)
    })
    try {
      const record = await handle.finished
      const result = record.results[0]
      if (!result) throw new McpError(ErrorCode.InternalError, `Run ${handle.runId} finished without a result`)
      return { runId: handle.runId, result, blobs: record.blobs }
    } finally {
      unsubscribe()
      call.signal.removeEventListener('abort', cancel)
    }
  }

  const backend: ToolexecMcpBackend = {
    async listTools() {
      const session = await sessions.get(caller.tenant, await caller.sessionId()).catch(asProtocolError)
      return dependencies.toolPool.schemaDefinitionsFor(sessions.contextFor(session))
    },
    callTool(block, call) {
      inFlight += 1
      return calls
        .run(() => runOne(block, call))
        .catch(asProtocolError)
        .finally(() => {
          inFlight -= 1
        })
    },
  }
  return { backend, inFlight: () => inFlight }
}
