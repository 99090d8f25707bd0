/**
 * Where the slowest deliveries of an event fan-out spend their time (docs/adr/0456). For the
 * deliveries at or above the p99, each delay (arrival minus the event's stamp) is split into
 * three parts that add up to it:
 * - `firstArrivalMs`: the event's first arrival on any stream minus its stamp: its source, the
 *   service's turn, one write and one read, what a single subscriber also sees;
 * - `readerPausesMs`: the reader's collection pauses between that first arrival and this one;
 * - `fanOutMs`: the rest, the service's writes to the streams before this one, the reader's reads
 *   of them and any waiting for a core.
 * Each part is the mean over those deliveries, ms. `burstEvents` is how many events the largest of
 * their bursts had (events stamped at most 3 ms apart), `burstDeliveries` that times subscribers.
 */
export type DeliveryTail = {
  deliveries: number
  meanMs: number
  firstArrivalMs: number
  readerPausesMs: number
  fanOutMs: number
  events: number
  burstEvents: number
  burstDeliveries: number
}

/** One delivery: the event's seq, its stamp and the arrival, ms (one clock). */
export type Delivery = { seq: number; stamped: number; at: number }

/** `pauses`: the reader's collection pauses as [start, end], ms on the same clock. */
export function deliveryTail(
  deliveries: readonly Delivery[],
  pauses: readonly (readonly [number, number])[],
  subscribers: number,
): DeliveryTail {
  const firstAt = new Map<number, number>()
  for (const { seq, at } of deliveries) firstAt.set(seq, Math.min(at, firstAt.get(seq) ?? at))
  const sorted = [...deliveries].sort((a, b) => a.at - a.stamped - (b.at - b.stamped))
  const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] as Delivery
  const top = sorted.filter(({ at, stamped }) => at - stamped >= p99.at - p99.stamped)
  let first = 0
  let paused = 0
  let total = 0
  for (const { seq, stamped, at } of top) {
    const from = firstAt.get(seq) as number
    first += from - stamped
    total += at - stamped
    for (const [start, end] of pauses) paused += Math.max(0, Math.min(end, at) - Math.max(start, from))
  }
  const mean = (sum: number) => Math.round((sum / top.length) * 100) / 100
  const events = new Set(top.map(({ seq }) => seq))
  const burstEvents = largestBurst(deliveries, events)
  return {
    deliveries: top.length,
    meanMs: mean(total),
    firstArrivalMs: mean(first),
    readerPausesMs: mean(paused),
    fanOutMs: mean(total - first - paused),
    events: events.size,
    burstEvents,
    burstDeliveries: burstEvents * subscribers,
  }
}

/** The most events, among the bursts holding one of `seqs`, stamped at most 3 ms after the one before. */
function largestBurst(deliveries: readonly Delivery[], seqs: ReadonlySet<number>): number {
  const stamps = new Map<number, number>()
  for (const { seq, stamped } of deliveries) stamps.set(seq, stamped)
  const order = [...stamps.entries()].sort((a, b) => a[0] - b[0])
  let largest = 0
  let size = 0
  let holds = false
  let previous = Number.NEGATIVE_INFINITY
  for (const [seq, stamped] of order) {
    if (stamped - previous > 3) {
      if (holds) largest = Math.max(largest, size)
      size = 0
      holds = false
    }
    size += 1
    holds ||= seqs.has(seq)
    previous = stamped
  }
  return holds ? Math.max(largest, size) : largest
}
