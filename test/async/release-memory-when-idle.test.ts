// Pins the idle-time heap compaction (docs/adr/0162-compact-the-heap-when-idle-after-load.md): once
// the event loop is idle and the heap has grown past where it settled, one real compacting
// collection runs and the heap is no larger after it; a heap that has not grown enough is left alone.
import { describe, expect, it, vi } from 'vitest'
import { releaseMemoryWhenIdle } from '../../src/async/release-memory-when-idle.js'

type Release = { heapBeforeBytes: number; heapAfterBytes: number; durationMs: number }

/** Keeps the event loop busy for longer than a check interval: a check under load. */
function busyFor(milliseconds: number): void {
  const end = performance.now() + milliseconds
  while (performance.now() < end) {
    // Spinning on purpose.
  }
}

describe('releaseMemoryWhenIdle', () => {
  it('compacts the heap once the loop is idle after load and the heap has grown', async () => {
    let garbage: { index: number; text: string }[] = Array.from({ length: 200_000 }, (_, index) => ({
      index,
      text: `item ${index}`,
    }))
    expect(garbage).toHaveLength(200_000)
    garbage = []
    const releases: Release[] = []
    const stop = releaseMemoryWhenIdle({
      intervalMs: 20,
      growthBytes: 0,
      onRelease: (release) => releases.push(release),
    })
    try {
      await new Promise((resolve) => setTimeout(resolve, 30))
      busyFor(80)
      await vi.waitFor(() => expect(releases.length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 })
    } finally {
      stop()
    }
    const [first] = releases as [Release]
    expect(first.heapAfterBytes).toBeLessThanOrEqual(first.heapBeforeBytes)
  })

  it('leaves an idle loop alone until it has been under load', async () => {
    let collections = 0
    const stop = releaseMemoryWhenIdle({ intervalMs: 20, growthBytes: 0, collect: () => collections++ })
    try {
      // Idle, never loaded: several checks pass (a timer of 5 intervals) without a collection.
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(collections).toBe(0)
      busyFor(80)
      await vi.waitFor(() => expect(collections).toBe(1), { timeout: 10_000, interval: 20 })
    } finally {
      stop()
    }
  })

  it('leaves alone a heap that has not grown past the threshold, even idle after load', async () => {
    let collections = 0
    const stop = releaseMemoryWhenIdle({ intervalMs: 20, growthBytes: 2 ** 40, collect: () => collections++ })
    try {
      await new Promise((resolve) => setTimeout(resolve, 30))
      busyFor(80)
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(collections).toBe(0)
    } finally {
      stop()
    }
  })
})
