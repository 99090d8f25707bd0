/**
 * How many new runs begin admission in one turn of the event loop
 * (docs/adr/0583-a-burst-of-runs-is-admitted-in-slices.md). A burst's requests arrive together, and
 * each admitted one costs the loop its body, validation, start and first call: 500 at once kept
 * it busy for 339 ms with no gap, and `/healthz` waited behind them. Past `perTurn` in a turn, a
 * request waits for a later turn, in arrival order, so the I/O of every other request (a probe, a
 * cancel, a permission answer) is read between slices.
 */
export type AdmissionTurnsOptions = {
  /** The most requests let through in one turn. */
  perTurn: number
  /** Runs `task` on a later turn of the event loop, after pending I/O (tests pass their own). */
  nextTurn?: (task: () => void) => void
}

export function createAdmissionTurns(options: AdmissionTurnsOptions) {
  const nextTurn = options.nextTurn ?? ((task) => setImmediate(task))
  const waiting: Array<() => void> = []
  /** Let through since the turn began. */
  let passed = 0
  /** Whether the end of this turn is already awaited. */
  let counting = false

  /** A new turn: its slice of the waiting requests goes now, the rest on the turns after it. */
  function turnOver() {
    const slice = waiting.splice(0, options.perTurn)
    passed = slice.length
    for (const go of slice) go()
    // What went in this turn counts against it: the next slice waits for the next turn.
    if (passed > 0) nextTurn(turnOver)
    else counting = false
  }

  return {
    /** Calls `go` now while this turn has room and nobody waits, else on a later turn, in order. */
    pass(go: () => void): void {
      if (!counting) {
        counting = true
        nextTurn(turnOver)
      }
      if (waiting.length === 0 && passed < options.perTurn) {
        passed++
        go()
        return
      }
      waiting.push(go)
    },
    /** Requests waiting for a turn (tests, metrics). */
    get waiting() {
      return waiting.length
    },
  }
}

export type AdmissionTurns = ReturnType<typeof createAdmissionTurns>
