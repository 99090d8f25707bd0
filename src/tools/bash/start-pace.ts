import os from 'node:os'
import { type IntervalHistogram, monitorEventLoopDelay } from 'node:perf_hooks'
import type { createStartPacer } from './start-pacer.js'

type StartPacer = ReturnType<typeof createStartPacer>

/** How the start limit is set: pinned by TOOLEXEC_MAX_STARTING_PROCESSES, or adapting between bounds. */
export type StartPaceState = { pacing: 'fixed' | 'adaptive'; floor: number; ceiling: number }

/**
 * The event loop's delay at or below which starts that had to wait get one more turn at once, at
 * or above which the limit halves, and how often it is read while starts are under way or waiting
 * (docs/adr/0506-the-start-limit-adapts-to-the-event-loop.md). 20 ms, a fifth of issue 23's
 * 100 ms for `/healthz` and the control routes: at 40 ms a burst's probes reached it; growing
 * only within 5 ms kept the limit near its floor on a loaded host.
 */
export const CALM_DELAY_MS = 10
export const BUSY_DELAY_MS = 20
const SAMPLE_MS = 50

/** The host's cores times this is the adaptive ceiling (docs/adr/0507-the-adaptive-start-limits-bounds.md). */
const CEILING_PER_CORE = 4

/**
 * The next limit after one reading: halved (not below `floor`) when the loop was late by
 * BUSY_DELAY_MS or more, one more (not above `ceiling`) when it was within CALM_DELAY_MS and
 * starts waited for a turn since the last reading or wait now, unchanged otherwise. Growing only
 * while starts wait keeps an idle or lightly used service at its floor.
 */
export function nextStartLimit(
  limit: number,
  reading: { delayMs: number; waited: boolean },
  bounds: { floor: number; ceiling: number },
): number {
  if (reading.delayMs >= BUSY_DELAY_MS) return Math.max(bounds.floor, Math.floor(limit / 2))
  if (reading.delayMs <= CALM_DELAY_MS && reading.waited) return Math.min(bounds.ceiling, limit + 1)
  return limit
}

/** Answers, `period` ms after it is called, the loop's worst delay meanwhile: tests give one that they answer by hand. */
export type DelayReader = (period: number, onReading: (delayMs: number) => void) => void

/** The resolution of the loop-delay histogram, also what each of its readings includes. */
const HISTOGRAM_RESOLUTION_MS = 10

/**
 * The loop's worst delay over the period: the largest of Node's loop-delay histogram (a stall
 * anywhere in the period, less its resolution) and how late the period's own timer fired. The
 * histogram runs only between a reading asked for and its answer, and no timer holds the process.
 */
function loopDelayReader(): DelayReader {
  let histogram: IntervalHistogram | undefined
  return (period, onReading) => {
    histogram ??= monitorEventLoopDelay({ resolution: HISTOGRAM_RESOLUTION_MS })
    const measured = histogram
    measured.enable()
    const due = performance.now() + period
    setTimeout(() => {
      const late = performance.now() - due
      const stalled = measured.count > 0 ? measured.max / 1e6 - HISTOGRAM_RESOLUTION_MS : 0
      measured.disable()
      measured.reset()
      onReading(Math.max(0, late, stalled))
    }, period).unref()
  }
}

/**
 * Sets `pacer`'s limit: pinned, or adapting to the service's own event-loop delay between a floor
 * and a ceiling (docs/adr/0506). The loop is read only while starts are under way or waiting, so
 * an idle service runs no timer for it.
 */
export function createStartPace(pacer: StartPacer, readDelay: DelayReader = loopDelayReader()) {
  let bounds: { floor: number; ceiling: number } | undefined
  let reading = false
  let waitsSeen = pacer.waits

  const onReading = (delayMs: number) => {
    reading = false
    if (!bounds) return
    const waited = pacer.queued > 0 || pacer.waits !== waitsSeen
    waitsSeen = pacer.waits
    const next = nextStartLimit(pacer.limit, { delayMs, waited }, bounds)
    if (next !== pacer.limit) pacer.setLimit(next)
    if (pacer.starting > 0 || pacer.queued > 0) read()
  }
  const read = () => {
    reading = true
    readDelay(SAMPLE_MS, onReading)
  }

  return {
    /** Every start at `limit` at once at most, always. */
    pin(limit: number): void {
      bounds = undefined
      pacer.setLimit(limit)
    },
    /** The limit starts at `floor` and moves between `floor` and `ceiling` with the loop's delay. */
    adapt(floor: number, ceiling: number): void {
      if (!Number.isInteger(floor) || floor < 1 || ceiling < floor)
        throw new TypeError(`the start limit's bounds must be whole, 1 ≤ floor ≤ ceiling, got ${floor}…${ceiling}`)
      if (bounds?.floor === floor && bounds.ceiling === ceiling) return
      bounds = { floor, ceiling }
      pacer.setLimit(floor)
    },
    /** Called at each start asked for: begins reading the loop if adapting and not yet reading. */
    starting(): void {
      if (bounds && !reading) read()
    },
    state(): StartPaceState {
      return bounds ? { pacing: 'adaptive', ...bounds } : { pacing: 'fixed', floor: pacer.limit, ceiling: pacer.limit }
    },
  }
}

/** The adaptive bounds: a start per core to CEILING_PER_CORE per core (docs/adr/0506, 0507). */
function adaptiveBounds(): [number, number] {
  const cores = os.availableParallelism()
  return [cores, cores * CEILING_PER_CORE]
}

/**
 * TOOLEXEC_MAX_STARTING_PROCESSES applied to `pace`: a number pins the start limit, undefined lets
 * it adapt between the host's bounds.
 */
export function pinOrAdaptStartLimit(pace: ReturnType<typeof createStartPace>, maxStarting: number | undefined): void {
  if (maxStarting === undefined) pace.adapt(...adaptiveBounds())
  else pace.pin(maxStarting)
}
