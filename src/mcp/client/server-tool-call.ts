import type { CallToolResult, Client } from '@modelcontextprotocol/client'
import { callServerTool } from './call-server-tool.js'
import type { McpCallOptions } from './create-mcp-tool.js'
import { type CallTimeouts, callError, isSessionGone, isTransportFailure, messageOf } from './mcp-errors.js'
import { mcpToolName } from './mcp-tool-name.js'
import type { OAuthStatus, ServerOAuth } from './oauth/server-oauth.js'

export type ServerToolCallOptions = {
  server: string
  type: 'stdio' | 'http'
  oauth?: ServerOAuth | undefined
  timeouts: CallTimeouts
  /** The connected client; waits while (re)connecting. */
  currentClient(signal: AbortSignal): Promise<Client>
  /** OAuth refused the call: the server's state takes the verdict (docs/adr/0424-oauth-server-states.md). */
  onRefused(verdict: OAuthStatus): void
  /** An HTTP request failed in transport: the connection is lost and reconnects. */
  onLost(client: Client, reason: string): void
}

/**
 * A server connection's `tools/call`, and what each failure means for it: a refusal only an
 * admin can lift changes the server's state, a broken HTTP connection reconnects (and a session
 * a restarted server forgot is retried once), anything else becomes the call's error.
 */
export function createServerToolCall(options: ServerToolCallOptions) {
  const { server } = options
  return async function callTool(
    toolName: string,
    input: { [key: string]: unknown },
    callOptions: McpCallOptions,
    isRetry = false,
  ): Promise<CallToolResult> {
    const { signal } = callOptions
    const current = await options.currentClient(signal)
    try {
      return await callServerTool(current, toolName, input, callOptions, options.timeouts)
    } catch (error) {
      const verdict = signal.aborted ? undefined : options.oauth?.classify(error)
      if (verdict) {
        options.onRefused(verdict)
        throw new Error(
          `MCP server "${server}" refused the call to ${mcpToolName(server, toolName)}: ${verdict.message}`,
        )
      }
      // stdio losses arrive through onclose; an HTTP server only shows them as failed requests.
      if (options.type === 'http' && !signal.aborted && isTransportFailure(error)) {
        options.onLost(current, `request failed: ${messageOf(error)}`)
        // A restarted server answers 404 for our old session before running anything: safe to retry once.
        if (isSessionGone(error) && !isRetry) return callTool(toolName, input, callOptions, true)
      }
      throw callError(error, {
        server,
        tool: mcpToolName(server, toolName),
        aborted: signal.aborted,
        timeouts: options.timeouts,
      })
    }
  }
}
