/** What the summary line says: refusals for capacity since the last line, by code. */
export type RefusalCounts = Record<string, number>

export type RefusalLogOptions = {
  /** The least time between two summary lines. */
  everyMs: number
  /** Writes one summary line. */
  write: (counts: RefusalCounts) => void
  /** Runs `task` after `ms` without keeping the process alive (tests pass their own). */
  after?: (ms: number, task: () => void) => void
}

/**
 * Refusals for capacity logged as one line per `everyMs` with their counts, not one line each:
 * under a flood the per-refusal lines were most of what the service wrote
 * (docs/adr/0362-capacity-refusals-logged-as-a-summary.md).
 */
export function createRefusalLog(options: RefusalLogOptions) {
  const after =
    options.after ??
    ((ms, task) => {
      setTimeout(task, ms).unref()
    })
  let counts: RefusalCounts | undefined

  function flush() {
    const written = counts
    counts = undefined
    if (written) options.write(written)
  }

  return {
    /** Writes the window's line now, if it counted anything (the service is closing). */
    flush,
    /** Counts one refusal; the first of a window schedules the window's line. */
    note(code: string): void {
      if (counts === undefined) {
        counts = {}
        after(options.everyMs, flush)
      }
      counts[code] = (counts[code] ?? 0) + 1
    },
  }
}

export type RefusalLog = ReturnType<typeof createRefusalLog>
