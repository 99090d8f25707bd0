import type { Logger } from '../logging/logger.js'

export type StallWatchOptions = {
  maSessionId: string
  /** After this long stalled, the session's run is marked (GET /v1/runs `stalled_since`). */
  stalledAfterMs: number
  /** The session's current (or last) toolexec run. */
  runId: () => string | undefined
  markStalled: (runId: string, since: string | undefined) => Promise<void>
  log: Logger
}

/**
 * When a Managed Agents session stopped making progress here, and the mark on its run in the run
 * store while that lasts (docs/managed-agents.md#liveness): set once the stall outlasts the grace,
 * cleared when progress comes back or the session leaves this worker.
 */
export function createStallWatch(options: StallWatchOptions) {
  let since: number | undefined
  let timer: NodeJS.Timeout | undefined
  let markedRun: string | undefined

  const mark = (runId: string, at: string | undefined) =>
    void options.markStalled(runId, at).catch((error: unknown) => {
      options.log.error({ err: error, maSessionId: options.maSessionId, runId }, 'the stall mark of a run failed')
    })

  function clearMark() {
    clearTimeout(timer)
    if (markedRun !== undefined) mark(markedRun, undefined)
    markedRun = undefined
  }

  function markRun() {
    const runId = options.runId()
    if (since === undefined || runId === undefined) return
    markedRun = runId
    mark(runId, new Date(since).toISOString())
  }

  return {
    update(stalled: boolean) {
      if (!stalled) {
        since = undefined
        clearMark()
      } else if (since === undefined) {
        since = Date.now()
        timer = setTimeout(markRun, options.stalledAfterMs)
        timer.unref()
      }
    },
    stalledMs: (now: number) => (since === undefined ? 0 : now - since),
    /** The session leaves this worker: what happens to it next is another claim's to see. */
    stop: clearMark,
  }
}
