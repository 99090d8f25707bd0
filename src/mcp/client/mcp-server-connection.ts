import { setTimeout as sleep } from 'node:timers/promises'
import { isDeepStrictEqual } from 'node:util'
import type { Client, Implementation, McpSubscription, Tool as McpToolDefinition } from '@modelcontextprotocol/client'
import { createSerialQueue } from '../../async/serial-queue.js'
import type { Logger } from '../../logging/logger.js'
import type { AnyTool } from '../../tool/tool.js'
import { createChangeSignal } from './change-signal.js'
import type { McpToolCaller } from './create-mcp-tool.js'
import { createSdkClient } from './create-sdk-client.js'
import { listenForToolChanges } from './listen-for-tool-changes.js'
import { type CallTimeouts, describeConnectError, isPermanentConnectError } from './mcp-errors.js'
import type { McpServerState, McpServerStatus } from './mcp-server-state.js'
import { listServerTools, type ToolsSkipped, wrapServerTools } from './mcp-server-tools.js'
import type { McpServerConfig } from './mcp-settings-schema.js'
import { createMcpTransport } from './mcp-transport.js'
import type { ServerOAuth } from './oauth/server-oauth.js'
import { resolveServerSecrets, type SecretResolver } from './resolve-server-secrets.js'
import { backoffDelay, type RetryPolicy } from './retry-policy.js'
import { createServerToolCall } from './server-tool-call.js'

export type ServerConnectionOptions = {
  name: string
  /** Already expanded; `configError` set instead when it could not be (missing variables). */
  config: McpServerConfig
  configError?: string
  /** Looks up `${secret:NAME}` at each connection attempt (docs/adr/0332-secret-references.md). */
  resolveSecret?: SecretResolver | undefined
  clientInfo: Implementation
  logger: Logger
  retry: RetryPolicy
  connectTimeoutMs: number
  callTimeouts: CallTimeouts
  /** Called whenever the tools this server contributes change. */
  onToolsChanged: () => void
  /** An HTTP server's OAuth (docs/adr/0420-oauth-tokens-in-the-vault.md). */
  oauth?: ServerOAuth | undefined
}

export type ServerConnection = McpToolCaller & {
  readonly name: string
  state(): McpServerState
  tools(): readonly AnyTool[]
  /** Resolves once the first connection attempt has settled (connected, failed or closed). */
  readonly settled: Promise<void>
  /** A failed or unauthorized server starts over with a fresh attempt budget (a secret was written, an admin authorized). */
  retryIfFailed(): void
  close(): Promise<void>
}

const STDERR_TAIL_LINES = 10

/**
 * One configured server: connects with bounded exponential backoff, reconnects when the
 * process exits or the HTTP session breaks, refreshes tools on `tools/list_changed`, and
 * runs calls on whichever client is current. The tools it built stay valid across reconnects.
 */
export function createServerConnection(options: ServerConnectionOptions): ServerConnection {
  const { name, config, logger, retry } = options
  let status: McpServerStatus = 'connecting'
  let lastError = options.configError
  let connectedAt: string | undefined
  let serverInfo: { name: string; version: string } | undefined
  let protocolVersion: string | undefined
  let client: Client | undefined
  let subscription: McpSubscription | undefined
  /** Set once a stdio server closed its pipe on the `server/discover` probe: later attempts skip it (ADR 0352). */
  let skipProbe = false
  let definitions: McpToolDefinition[] = []
  let wrappers: readonly AnyTool[] = []
  let failures = 0
  let stableTimer: NodeJS.Timeout | undefined
  let closed = false
  let loop: Promise<void> | undefined
  const stopping = new AbortController()
  const stderrTail: string[] = []
  const statusChanged = createChangeSignal()
  let markSettled = () => {}
  const settled = new Promise<void>((resolve) => {
    markSettled = resolve
  })

  const callTool = createServerToolCall({
    server: name,
    type: config.type,
    oauth: options.oauth,
    timeouts: options.callTimeouts,
    currentClient,
    onRefused(verdict) {
      lastError = verdict.message
      setStatus(verdict.status)
      logger.warn({ server: name, error: lastError }, 'MCP server call refused by OAuth')
    },
    onLost: handleLoss,
  })
  const connection: ServerConnection = { name, state, tools: () => wrappers, settled, retryIfFailed, close, callTool }

  function setStatus(next: McpServerStatus): void {
    status = next
    if (next !== 'connecting' && next !== 'reconnecting') markSettled()
    statusChanged.notify()
  }

  function setDefinitions(next: McpToolDefinition[]): void {
    if (isDeepStrictEqual(next, definitions)) return
    definitions = next
    const onSkipped = (skipped: ToolsSkipped) => logger.warn({ server: name, ...skipped }, 'MCP tool skipped')
    wrappers = wrapServerTools({ serverName: name, definitions, caller: connection, onSkipped, logger })
    options.onToolsChanged()
  }

  function fail(final: McpServerStatus = 'failed'): void {
    client = undefined
    setDefinitions([])
    setStatus(final)
    logger.error({ server: name, error: lastError }, 'MCP server failed; its tools are unavailable')
  }

  function rememberStderr(line: string): void {
    stderrTail.push(line.length > 500 ? `${line.slice(0, 500)}…` : line)
    if (stderrTail.length > STDERR_TAIL_LINES) stderrTail.shift()
    logger.debug({ server: name, stderr: line }, 'MCP server stderr')
  }

  async function refreshTools(from: Client): Promise<void> {
    try {
      const next = await listServerTools(from, { signal: stopping.signal, timeout: options.connectTimeoutMs })
      if (client === from) setDefinitions(next)
    } catch (error) {
      logger.warn({ server: name, error: String(error) }, 'MCP tools/list refresh failed')
    }
  }

  async function connectOnce(): Promise<void> {
    stderrTail.length = 0
    options.oauth?.beginAttempt()
    const refreshes = createSerialQueue()
    const next: Client = createSdkClient({
      clientInfo: options.clientInfo,
      protocol: config.protocol,
      connectTimeoutMs: options.connectTimeoutMs,
      // One at a time: a burst of list_changed notifications yields ordered, complete refreshes.
      onToolsListChanged: () => void refreshes.run(() => (client === next ? refreshTools(next) : undefined)),
    })
    next.onerror = (error) => logger.debug({ server: name, error: error.message }, 'MCP transport error')
    next.onclose = () =>
      handleLoss(next, config.type === 'stdio' ? 'the server process exited' : 'the connection closed')
    try {
      const resolved = options.resolveSecret ? await resolveServerSecrets(config, options.resolveSecret) : config
      try {
        await next.connect(createMcpTransport(resolved, rememberStderr, options.oauth?.provider), {
          timeout: options.connectTimeoutMs,
          signal: stopping.signal,
          ...(skipProbe ? { prior: { kind: 'legacy' as const } } : {}),
        })
      } catch (error) {
        if (config.type === 'stdio' && (config.protocol ?? 'auto') === 'auto' && !isPermanentConnectError(error)) {
          skipProbe = true
        }
        throw error
      }
      const listed = await listServerTools(next, { signal: stopping.signal, timeout: options.connectTimeoutMs })
      const listening = await listenForToolChanges(next, {
        signal: stopping.signal,
        timeout: options.connectTimeoutMs,
        onFailure: (message) =>
          logger.warn({ server: name, error: message }, 'MCP tools/list_changed subscription failed'),
      })
      if (closed) throw new Error('shutting down')
      client = next
      subscription = listening
      serverInfo = next.getServerVersion()
      protocolVersion = next.getNegotiatedProtocolVersion()
      connectedAt = new Date().toISOString()
      setDefinitions(listed)
    } catch (error) {
      await next.close().catch(() => {})
      throw error
    }
  }

  async function connectLoop(): Promise<void> {
    while (!closed) {
      try {
        await connectOnce()
        setStatus('connected')
        logger.info({ server: name, tools: wrappers.length }, 'MCP server connected')
        clearTimeout(stableTimer)
        stableTimer = setTimeout(() => {
          failures = 0
        }, retry.stableAfterMs)
        stableTimer.unref()
        return
      } catch (error) {
        if (closed) return
        failures += 1
        lastError = describeConnectError(error, stderrTail)
        // Refused credentials and a missing authorization wait for an admin (docs/adr/0424-oauth-server-states.md).
        const verdict = options.oauth?.classify(error)
        if (verdict) {
          lastError = verdict.message
          return fail(verdict.status)
        }
        if (isPermanentConnectError(error) || failures >= retry.maxAttempts) return fail()
        logger.warn({ server: name, attempt: failures, error: lastError }, 'MCP server connection failed; retrying')
        // Shutdown must not wait out a backoff: the abort ends the wait (its rejection is the
        // only one this timer has) and the loop sees `closed`.
        await sleep(backoffDelay(retry, failures), undefined, { signal: stopping.signal }).catch(() => {})
      }
    }
  }

  /** Lets go of the current client and its subscription; returns the client, for the caller to close. */
  function release(): Client | undefined {
    const current = client
    client = undefined
    void subscription?.close().catch(() => {})
    subscription = undefined
    return current
  }

  function handleLoss(lost: Client, reason: string): void {
    if (closed || client !== lost) return
    release()
    clearTimeout(stableTimer)
    void lost.close().catch(() => {})
    failures += 1
    lastError = stderrTail.length > 0 ? `${reason}\nstderr:\n${stderrTail.join('\n')}` : reason
    logger.warn({ server: name, error: lastError }, 'MCP server connection lost; reconnecting')
    // A server that keeps dying right after it connects exhausts the same budget as one that never connects.
    if (failures >= retry.maxAttempts) {
      fail()
      return
    }
    setStatus('reconnecting')
    loop = connectLoop()
  }

  /** The current client; while (re)connecting, waits for the outcome rather than failing the call. */
  async function currentClient(signal: AbortSignal): Promise<Client> {
    while (true) {
      if (client) return client
      if (closed) throw new Error(`MCP server "${name}" has been shut down`)
      if (status !== 'connecting' && status !== 'reconnecting' && status !== 'connected')
        throw new Error(`MCP server "${name}" is not available: ${lastError ?? status}`)
      if (signal.aborted) throw new Error(`Call cancelled while MCP server "${name}" was reconnecting`)
      await statusChanged.wait(signal)
    }
  }

  function state(): McpServerState {
    return {
      name,
      type: config.type,
      status,
      toolCount: wrappers.length,
      ...(lastError !== undefined ? { lastError } : {}),
      ...(connectedAt ? { connectedAt } : {}),
      ...(serverInfo ? { serverInfo: { name: serverInfo.name, version: serverInfo.version } } : {}),
      ...(protocolVersion ? { protocolVersion } : {}),
    }
  }

  function retryIfFailed(): void {
    // A settings error (a missing environment variable) stays until a restart; only connect failures retry.
    if (closed || options.configError !== undefined) return
    if (status !== 'failed' && status !== 'unauthorized' && status !== 'needs_authorization') return
    // A client kept through a refused call (ADR 0424) gives way to one on the new tokens.
    void release()
      ?.close()
      .catch(() => {})
    failures = 0
    setStatus('connecting')
    loop = connectLoop()
  }

  async function close(): Promise<void> {
    if (closed) return
    closed = true
    stopping.abort()
    clearTimeout(stableTimer)
    const current = release()
    statusChanged.notify()
    markSettled()
    await Promise.allSettled([loop, current?.close()])
  }

  if (options.configError !== undefined) fail()
  else loop = connectLoop()
  return connection
}
