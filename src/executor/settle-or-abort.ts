/** How long an aborted call may take to wind down (kill its processes) before its slot is freed. */
const ABORT_GRACE_MS = 5_000

/**
 * Hands `settled` the call's outcome exactly once: when `work` settles (undefined and the fault if
 * it rejects, with `failure`), or, once the executor aborted the call, at most a grace period later (undefined).
 * A tool that honours its AbortSignal settles at once; one that ignores it cannot hold the run
 * hostage. The executor owns every abort source and calls `onAbort` itself: listening on the
 * signal would cost an EventTarget listener per call. Callback-shaped, not a wrapping promise:
 * a call never aborted costs no promise, timer or async frame of its own
 * (docs/adr/0310-the-engines-common-path-awaits-nothing.md).
 */
export function settleOrAbort<T>(
  work: Promise<T>,
  call: { onAbort?: () => void },
  settled: (outcome: T | undefined, failure?: { fault: unknown }) => void,
  graceMs = ABORT_GRACE_MS,
): void {
  let done = false
  const once = (outcome: T | undefined, failure?: { fault: unknown }) => {
    if (done) return
    done = true
    settled(outcome, failure)
  }
  call.onAbort = () => {
    setTimeout(once, graceMs, undefined).unref()
  }
  work.then(once, (fault: unknown) => once(undefined, { fault }))
}
