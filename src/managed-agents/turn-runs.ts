import { isApiError } from '../errors/api-error.js'
import type { RunEvent } from '../events/run-event.js'
import type { Logger } from '../logging/logger.js'
import type { ToolUseBlock } from '../messages/content-blocks.js'
import type { RunManager } from '../runs/run-manager.js'
import { checkBlocks, type InputLimits, requestFromManagedAgentsTurn } from '../runs/run-request.js'
import type { RunHandle } from '../runs/start-run.js'
import { sleep } from './api-status.js'

type StartedRun = Extract<RunHandle, { kind: 'started' }>

export type TurnRunsOptions = {
  runManager: Pick<RunManager, 'start' | 'subscribe'>
  tenant: string
  /** The toolexec session the calls run in (one per Managed Agents session). */
  sessionId: string
  limits: InputLimits
  log: Logger
  /** Every event of every run, in order: `tool.started` and `tool.result` are the ones that matter. */
  onEvent: (event: RunEvent) => void
  signal: AbortSignal
}

/** How long a refused start (capacity, a draining server) waits before it tries again. */
const RETRY_START_MS = [50, 100, 250, 500, 1000] as const

/**
 * The calls of one Managed Agents session as streamed-input runs of its toolexec session
 * (docs/adr/0401): a run opens with the first call of a turn, takes each call as it becomes
 * runnable (read-only ones run in parallel under the cap, the others in order), and its input ends
 * with the turn. A call that becomes runnable after that (a late confirmation) goes in the next
 * run, started once this one has finished: a session has one run at a time (ADR 0031).
 */
export function createTurnRuns(options: TurnRunsOptions) {
  const { runManager, log } = options
  let current: StartedRun | undefined
  let seen = new Set<string>()
  /** The open run's message: its calls are appended as they stream in, as streamed input does. */
  let content: Array<{ type: string; [key: string]: unknown }> = []
  let waiting: ToolUseBlock[] = []
  let starting: Promise<void> | undefined
  let endWhenStarted = false
  let cancelled: 'cancel' | 'shutdown' | undefined

  async function startRun(): Promise<StartedRun | undefined> {
    for (let attempt = 0; !options.signal.aborted; attempt += 1) {
      try {
        content = []
        const request = requestFromManagedAgentsTurn(
          { tenant: options.tenant, logger: log },
          options.sessionId,
          content,
        )
        const handle = await runManager.start(request)
        if (handle.kind !== 'started') throw new Error(`a Managed Agents turn replayed run ${handle.runId}`)
        await runManager.subscribe(options.tenant, handle.runId, 0, options.onEvent)
        return handle
      } catch (error) {
        // Refusals for capacity, a busy session or a drain pass; anything else is a fault.
        const retryable =
          isApiError(error) && ['server_at_capacity', 'tenant_over_capacity', 'session_busy'].includes(error.code)
        if (!retryable) throw error
        await sleep(RETRY_START_MS[Math.min(attempt, RETRY_START_MS.length - 1)]!, options.signal)
      }
    }
    return undefined
  }

  function feed(run: StartedRun, block: ToolUseBlock) {
    let refuseWith: string | undefined
    try {
      checkBlocks([block], options.limits, seen)
    } catch (error) {
      if (!isApiError(error)) throw error
      refuseWith = error.message
    }
    content.push(block)
    run.live.addToolUse(block, refuseWith === undefined ? undefined : { refuseWith })
  }

  function openNext() {
    starting ??= (async () => {
      try {
        if (current) await current.finished.catch(() => undefined)
        const run = await startRun()
        if (!run) return
        current = run
        seen = new Set()
        const blocks = waiting
        waiting = []
        for (const block of blocks) feed(run, block)
        if (cancelled === 'shutdown' || options.signal.aborted) run.live.cancel('shutdown')
        else if (endWhenStarted) run.live.endInput()
        endWhenStarted = false
      } finally {
        starting = undefined
        if (waiting.length > 0) openNext()
      }
    })().catch((error: unknown) => log.error({ err: error }, 'a Managed Agents turn could not start its run'))
  }

  return {
    /** Runs the call in the open run, or in the next one. */
    add(block: ToolUseBlock) {
      if (current && !current.live.inputEnded && starting === undefined) feed(current, block)
      else {
        waiting.push(block)
        openNext()
      }
    },
    /** The turn is over: the open run takes no more calls. */
    endTurn() {
      if (starting !== undefined) endWhenStarted = true
      else if (current && !current.live.inputEnded) current.live.endInput()
    },
    /** Calls not yet in a run, taken out (an interrupt answers them itself). */
    takeWaiting(): ToolUseBlock[] {
      const blocks = waiting
      waiting = []
      return blocks
    },
    /** `cancel`: unfinished calls get the user's cancel texts; `shutdown`: the service's. */
    cancel(mode: 'cancel' | 'shutdown') {
      if (starting !== undefined) endWhenStarted = true
      if (mode === 'shutdown') cancelled = mode
      current?.live.cancel(mode)
    },
    get runId() {
      return current?.runId
    },
    /** Settles when no run is open or starting. */
    async settled(): Promise<void> {
      while (starting !== undefined || (current && current.live.status === 'running')) {
        if (starting) await starting
        else await current?.finished.catch(() => undefined)
      }
    },
  }
}
