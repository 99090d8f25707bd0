import { setTimeout as sleep } from 'node:timers/promises'

/** How long an aborted call may take to wind down (kill its processes) before its slot is freed. */
const ABORT_GRACE_MS = 5_000

/**
 * Waits for the call; once `onAbort` fires, waits at most a grace period more. A tool that
 * honours its AbortSignal settles at once; one that ignores it cannot hold the run hostage.
 * The executor owns every abort source and calls `onAbort` itself: listening on the signal
 * would cost an EventTarget listener per call, the largest share of the engine's overhead.
 */
export function settleOrAbort<T>(work: Promise<T>, onAbort: (listener: () => void) => void, graceMs = ABORT_GRACE_MS) {
  return new Promise<T | undefined>((resolve, reject) => {
    onAbort(() => {
      Promise.race([work, sleep(graceMs, undefined, { ref: false })]).then(resolve, reject)
    })
    work.then(resolve, reject)
  })
}
