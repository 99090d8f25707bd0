import { performance } from 'node:perf_hooks'
import v8 from 'node:v8'
import vm from 'node:vm'

export type IdleMemoryRelease = {
  /** Event-loop utilisation at or above this share in one check counts as load (default 0.5). */
  loadUtilization?: number
  /** Event-loop utilisation below this share counts as idle (default 0.05). */
  idleUtilization?: number
  /** Consecutive idle checks before a release (default 2). */
  idleChecks?: number
  /** Between checks (default 1 s). */
  intervalMs?: number
  /** Heap growth since the last release (or start) that makes one worth it (default 4 MiB). */
  growthBytes?: number
  /**
   * Heap growth within one busy stretch (checks not idle) that counts as load however busy the
   * loop was (default 8 MiB; docs/adr/0435-heap-growth-under-work-counts-as-load.md).
   */
  loadGrowthBytes?: number
  /** Replaces the readings of the loop's utilisation since the last reading and of the heap's size (tests). */
  measure?: () => { utilization: number; heapBytes: number }
  /** Replaces the compacting collection (tests count calls). */
  collect?: () => void
  onRelease?: (release: { heapBeforeBytes: number; heapAfterBytes: number; durationMs: number }) => void
}

/**
 * One full, compacting collection. A forced full collection alone frees the garbage but leaves
 * old-space pages half used; compaction moves the survivors together so that the emptied pages go
 * back to the system. The two flags are switched only around this call; Jest takes `gc` the same
 * way (docs/adr/0162-compact-the-heap-when-idle-after-load.md).
 */
function compactingCollection(): (() => void) | undefined {
  v8.setFlagsFromString('--expose-gc')
  const gc: unknown = vm.runInNewContext('typeof gc === "function" ? gc : undefined')
  v8.setFlagsFromString('--no-expose-gc')
  if (typeof gc !== 'function') return undefined
  return () => {
    v8.setFlagsFromString('--compact-on-every-full-gc')
    try {
      gc()
    } finally {
      v8.setFlagsFromString('--no-compact-on-every-full-gc')
    }
  }
}

/**
 * After a burst, V8 keeps the heap it grew to: with no allocation left to trigger a collection
 * its memory reducer never starts, and the service held twice its resting RSS for as long as it
 * stayed idle. This watches the event loop and, once it has been idle for a few checks after a
 * check under load, with the heap grown well past where it last settled, compacts the heap once.
 * A lightly used service is never loaded and keeps V8's own (incremental) collections: a forced
 * full one stops the loop for tens of milliseconds. Load is a check with the loop half busy, or a
 * busy stretch that grew the heap by `loadGrowthBytes` (docs/adr/0435). Returns the stop function; the timer never
 * keeps the process alive.
 */
export function releaseMemoryWhenIdle(options: IdleMemoryRelease = {}): () => void {
  const loadUtilization = options.loadUtilization ?? 0.5
  const idleUtilization = options.idleUtilization ?? 0.05
  const idleChecks = options.idleChecks ?? 2
  const growthBytes = options.growthBytes ?? 4 * 2 ** 20
  const collect = options.collect ?? compactingCollection()
  // A runtime that does not hand out `gc` this way keeps its heap as V8 leaves it.
  if (!collect) return () => undefined
  const loadGrowthBytes = options.loadGrowthBytes ?? 8 * 2 ** 20
  const heapBytes = () => v8.getHeapStatistics().total_heap_size
  const measure = options.measure ?? measureLoopAndHeap(heapBytes)
  let settled = measure().heapBytes
  /** The heap's size when the current busy stretch began (at the last idle check). */
  let busyFrom = settled
  let idleFor = 0
  let loaded = false
  const timer = setInterval(() => {
    const { utilization, heapBytes: heapBeforeBytes } = measure()
    const idle = utilization < idleUtilization
    idleFor = idle ? idleFor + 1 : 0
    if (utilization >= loadUtilization) loaded = true
    // A loop that keeps up with a burst may never be half busy while the burst grows the heap by
    // tens of MiB: growth in one busy stretch is load too. A lightly used service idles between
    // its requests, and each idle check starts a new stretch (docs/adr/0435).
    if (heapBeforeBytes - busyFrom >= loadGrowthBytes) loaded = true
    if (idle) busyFrom = heapBeforeBytes
    // A heap V8 shrank by itself is the new resting point.
    settled = Math.min(settled, heapBeforeBytes)
    if (!loaded || idleFor < idleChecks || heapBeforeBytes < settled + growthBytes) return
    const started = performance.now()
    collect()
    settled = heapBytes()
    busyFrom = settled
    idleFor = 0
    loaded = false
    options.onRelease?.({ heapBeforeBytes, heapAfterBytes: settled, durationMs: performance.now() - started })
  }, options.intervalMs ?? 1000)
  timer.unref()
  return () => clearInterval(timer)
}

/** The loop's utilisation since the previous reading, and the heap's committed size. */
function measureLoopAndHeap(heapBytes: () => number): () => { utilization: number; heapBytes: number } {
  let last = performance.eventLoopUtilization()
  return () => {
    const now = performance.eventLoopUtilization()
    const { utilization } = performance.eventLoopUtilization(now, last)
    last = now
    return { utilization, heapBytes: heapBytes() }
  }
}
