import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client'

export type CallTimeouts = {
  /** No response and no progress for this long: the call times out (progress resets the clock). */
  idleMs: number
  /** Upper bound on a call however much progress it reports. */
  totalMs: number
}

/** An error's message; HTTP failures lead with their status, which the SDK's message leaves out. */
export function messageOf(error: unknown): string {
  if (error instanceof SdkHttpError && error.status > 0 && !error.message.includes(String(error.status))) {
    return `HTTP ${error.status}: ${error.message}`
  }
  return error instanceof Error ? error.message : String(error)
}

/** Secret lookups that fail the same way until an admin acts (docs/adr/0332-secret-references.md). */
const SECRET_ERRORS = new Set(['UnknownSecretError', 'SecretUnreadableError', 'SecretsNotConfiguredError'])

/**
 * Failures no retry can fix: a missing or non-executable command, a malformed URL, a refused
 * credential, a secret that is not stored or does not decrypt.
 */
export function isPermanentConnectError(error: unknown): boolean {
  if (error instanceof Error && SECRET_ERRORS.has(error.name)) return true
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'ENOENT' || code === 'EACCES' || code === 'ERR_INVALID_URL') return true
  if (error instanceof SdkHttpError) return error.status === 401 || error.status === 403
  return error instanceof Error && error.name === 'UnauthorizedError'
}

/** The HTTP server no longer knows our session (it restarted): the request was never run. */
export function isSessionGone(error: unknown): boolean {
  return error instanceof SdkHttpError && error.status === 404
}

/** Why a connection attempt failed, with the server's last stderr lines when it left any. */
export function describeConnectError(error: unknown, stderrTail: readonly string[]): string {
  const code = (error as { code?: unknown } | null)?.code
  const path = (error as { path?: unknown } | null)?.path
  let message = messageOf(error)
  if (code === 'ENOENT' && typeof path === 'string') message = `command not found: ${path} (${message})`
  if (code === 'EACCES' && typeof path === 'string') message = `command is not executable: ${path} (${message})`
  return stderrTail.length > 0 ? `${message}\nstderr:\n${stderrTail.join('\n')}` : message
}

/** A failure below the protocol (network down, HTTP error status, session gone): the connection must be rebuilt. */
export function isTransportFailure(error: unknown): boolean {
  if (error instanceof SdkHttpError) return true
  if (error instanceof SdkError)
    return error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.SendFailed
  // fetch reports an unreachable server as a TypeError ("fetch failed").
  return error instanceof TypeError
}

export type CallErrorContext = {
  server: string
  /** The name the model used: `mcp__<server>__<tool>`. */
  tool: string
  aborted: boolean
  timeouts: CallTimeouts
}

/**
 * One thrown error per failed call, worded for the model that reads it as the tool result:
 * what happened, and whether the call may have run partly. Tool failures a server reports
 * (`isError`) are results, not throws, and never reach this.
 */
export function callError(error: unknown, context: CallErrorContext): Error {
  const { server, tool } = context
  if (context.aborted) return new Error(`${tool} was cancelled; MCP server "${server}" was told to stop it.`)
  if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
    const total = (error.data as { maxTotalTimeout?: unknown } | undefined)?.maxTotalTimeout !== undefined
    const why = total
      ? `it ran longer than the ${context.timeouts.totalMs} ms limit`
      : `MCP server "${server}" sent no response or progress for ${context.timeouts.idleMs} ms`
    return new Error(`${tool} timed out: ${why}. The call was cancelled and may have had partial effects.`)
  }
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
    return new Error(
      `MCP server "${server}" disconnected while running ${tool}; the call may have had partial effects. ` +
        'The server is being reconnected: a later call can be retried.',
    )
  }
  if (error instanceof ProtocolError)
    return new Error(`MCP server "${server}" rejected the call to ${tool}: ${error.message}`)
  return new Error(`Calling ${tool} on MCP server "${server}" failed: ${messageOf(error)}`)
}

/**
 * The SDK sends `String(signal.reason)` to the server in notifications/cancelled; the engine
 * aborts with reason objects (`{ kind: 'timeout' }`), which would arrive as "[object Object]".
 */
export function serverFacingSignal(signal: AbortSignal): AbortSignal {
  const controller = new AbortController()
  const forward = () => controller.abort(reasonText(signal.reason))
  if (signal.aborted) forward()
  else signal.addEventListener('abort', forward, { once: true })
  return controller.signal
}

function reasonText(reason: unknown): string {
  if (typeof reason === 'string') return reason
  if (reason instanceof Error) return reason.message
  const kind = (reason as { kind?: unknown } | null)?.kind
  return typeof kind === 'string' ? `toolexec: ${kind}` : 'toolexec: cancelled'
}
