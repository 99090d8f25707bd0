/**
 * When a refusal for capacity is answered (docs/adr/0182-capacity-refusals-are-paced.md,
 * docs/adr/0360-a-connection-that-ignores-retry-after-waits-for-it.md,
 * docs/adr/0361-paced-refusals-leave-in-small-batches.md).
 */
export type RefusalPacerOptions = {
  /** The least time any refusal waits before its answer. */
  paceMs: number
  /** The `Retry-After` the refusal carries: a connection is answered at most once per this. */
  retryAfterMs: number
  /** The most refusals answered in one turn of the event loop. */
  perTurn: number
  /** A monotonic clock in ms (tests pass their own). */
  now?: () => number
  /** Runs `task` after `ms` (tests pass their own). */
  after?: (ms: number, task: () => void) => void
  /** Runs `task` on a later turn of the event loop, after pending I/O (tests pass their own). */
  nextTurn?: (task: () => void) => void
}

/** The refusals that come due together leave `perTurn` at a time, each on a turn of its own. */
export function createRefusalPacer(options: RefusalPacerOptions) {
  const now = options.now ?? (() => performance.now())
  const after = options.after ?? ((ms, task) => setTimeout(task, ms))
  const nextTurn = options.nextTurn ?? ((task) => setImmediate(task))
  /** When each connection's last refusal left: weak, so a closed connection is forgotten. */
  const answeredAt = new WeakMap<object, number>()
  const due: Array<{ connection: object; answer: () => void }> = []
  let draining = false

  function drain() {
    const batch = due.splice(0, options.perTurn)
    const at = now()
    for (const { connection, answer } of batch) {
      answeredAt.set(connection, at)
      answer()
    }
    if (due.length > 0) nextTurn(drain)
    else draining = false
  }

  /** The delay before a refusal on `connection` leaves, counted from now. */
  function delayFor(connection: object): number {
    const last = answeredAt.get(connection)
    const sinceLast = last === undefined ? Number.POSITIVE_INFINITY : now() - last
    return Math.max(options.paceMs, options.retryAfterMs - sinceLast)
  }

  return {
    delayFor,
    /** Answers a refusal on `connection` (any object that lives as long as it) when it is due. */
    pace(connection: object, answer: () => void): void {
      after(delayFor(connection), () => {
        // Not answered here: every timer due in this phase queues first, then they leave in batches.
        due.push({ connection, answer })
        if (draining) return
        draining = true
        nextTurn(drain)
      })
    },
  }
}

export type RefusalPacer = ReturnType<typeof createRefusalPacer>
