/** How long an aborted call may take to wind down (kill its processes) before its slot is freed. */
const ABORT_GRACE_MS = 5_000

export type Settle<T> = (outcome: T | undefined) => void

/**
 * `settled`, taking only the first of its calls: the pipeline's outcome, or, once the executor
 * aborted the call, the end of the grace period (undefined), whichever comes first. A tool that
 * honours its AbortSignal settles at once; one that ignores it cannot hold the run hostage.
 * A plain callback, not a promise: a call never aborted costs no promise, timer or async frame
 * of its own (docs/adr/0310, docs/adr/0441-the-call-pipeline-is-callback-shaped.md).
 */
export function settleOnce<T>(settled: Settle<T>): Settle<T> {
  let done = false
  return (outcome) => {
    if (done) return
    done = true
    settled(outcome)
  }
}

/**
 * After an abort: hands `settle` undefined once the grace is over (a settle made by settleOnce
 * ignores it if the work settled first). The executor owns every abort source and calls this
 * itself: listening on the signal would cost an EventTarget listener per call.
 */
export function graceAfterAbort<T>(settle: Settle<T>, graceMs = ABORT_GRACE_MS): void {
  setTimeout(settle, graceMs, undefined).unref()
}
