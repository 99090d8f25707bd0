/**
 * The `ts` of run events: an ISO 8601 string, built once per millisecond. A batch of calls emits
 * dozens of events in the same millisecond, and `new Date().toISOString()` per event was a visible
 * share of the event append in the request-path profile
 * (docs/adr/0170-events-stamped-in-place.md).
 */
export function createEventClock(now: () => number = Date.now): () => string {
  let lastMs = Number.NaN
  let lastIso = ''
  return () => {
    const ms = now()
    if (ms !== lastMs) {
      lastMs = ms
      lastIso = new Date(ms).toISOString()
    }
    return lastIso
  }
}
