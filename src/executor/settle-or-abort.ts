/** How long an aborted call may take to wind down (kill its processes) before its slot is freed. */
const ABORT_GRACE_MS = 5_000

/** A running call's hand-over of its outcome: present until the first hand-over. */
export type SettleHolder<T> = { settle: ((outcome: T | undefined, holder: never) => void) | undefined }

/**
 * Hands the call's outcome over exactly once: the first hand-over — the pipeline's outcome, or,
 * once the executor aborted the call, the end of the grace period (undefined) — clears `settle`
 * and the later ones find nothing. A tool that honours its AbortSignal settles at once; one that
 * ignores it cannot hold the run hostage. A plain callback on the call, not a promise or a closure
 * of its own: a call never aborted costs no promise, timer or async frame
 * (docs/adr/0310, docs/adr/0441-the-call-pipeline-is-callback-shaped.md).
 */
export function handOver<T>(call: SettleHolder<T>, outcome: T | undefined): void {
  const settle = call.settle
  if (settle === undefined) return
  call.settle = undefined
  // The holder comes along, so one function can serve every call of a run (docs/adr/0433).
  ;(settle as (outcome: T | undefined, holder: SettleHolder<T>) => void)(outcome, call)
}

/**
 * After an abort: hands the call undefined once the grace is over, unless its work settled first.
 * The executor owns every abort source and calls this itself: listening on the signal would cost
 * an EventTarget listener per call.
 */
export function graceAfterAbort<T>(call: SettleHolder<T>, graceMs = ABORT_GRACE_MS): void {
  setTimeout(handOver, graceMs, call, undefined).unref()
}
