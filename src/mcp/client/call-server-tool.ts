import type { CallToolResult, Client } from '@modelcontextprotocol/client'
import { traceHeaders } from '../../telemetry/trace-headers.js'
import type { McpCallOptions } from './create-mcp-tool.js'
import { type CallTimeouts, serverFacingSignal } from './mcp-errors.js'

/**
 * One `tools/call` on a connected client. Progress is always requested, even when nobody
 * listens: each notification resets the idle deadline, so long calls that report progress live.
 */
export async function callServerTool(
  client: Client,
  toolName: string,
  input: { [key: string]: unknown },
  options: McpCallOptions,
  timeouts: CallTimeouts,
): Promise<CallToolResult> {
  const { onProgress } = options
  // The call's W3C trace context travels in `params._meta` (MCP's place for request metadata).
  const trace = traceHeaders()
  const params = { name: toolName, arguments: input, ...(trace.traceparent ? { _meta: trace } : {}) }
  const result = await client.callTool(params, {
    signal: serverFacingSignal(options.signal),
    onprogress: ({ progress, total, message }) =>
      onProgress?.({ progress, ...(total !== undefined ? { total } : {}), ...(message ? { message } : {}) }),
    resetTimeoutOnProgress: true,
    timeout: timeouts.idleMs,
    maxTotalTimeout: timeouts.totalMs,
  })
  return result as CallToolResult
}
