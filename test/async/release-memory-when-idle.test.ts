// Pins the idle-time heap compaction (docs/adr/0162-compact-the-heap-when-idle-after-load.md): once
// the event loop is idle and the heap has grown past where it settled, one real compacting
// collection runs and the heap is no larger after it; a heap that has not grown enough is left alone.
import { describe, expect, it, vi } from 'vitest'
import { releaseMemoryWhenIdle } from '../../src/async/release-memory-when-idle.js'

type Release = { heapBeforeBytes: number; heapAfterBytes: number; durationMs: number }

describe('releaseMemoryWhenIdle', () => {
  it('compacts the heap once the loop is idle and the heap has grown', async () => {
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
      await vi.waitFor(() => expect(releases.length).toBeGreaterThan(0), { timeout: 10_000, interval: 20 })
    } finally {
      stop()
    }
    const [first] = releases as [Release]
    expect(first.heapAfterBytes).toBeLessThanOrEqual(first.heapBeforeBytes)
  })

  it('leaves a heap alone that has not grown past the threshold, and releases one that has', async () => {
    let collections = 0
    // Held while the test wants the heap grown; the stand-in collection lets go of it.
    const held: { numbers?: number[] } = {}
    const stop = releaseMemoryWhenIdle({
      intervalMs: 20,
      growthBytes: 24 * 2 ** 20,
      collect: () => {
        collections++
        delete held.numbers
      },
    })
    try {
      // Idle, ungrown: several checks pass (a timer of 5 intervals) without a collection.
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(collections).toBe(0)
      held.numbers = Array.from({ length: 4_000_000 }, (_, index) => index + 0.5)
      await vi.waitFor(() => expect(collections).toBe(1), { timeout: 10_000, interval: 20 })
      expect(held.numbers).toBeUndefined()
    } finally {
      stop()
    }
  })
})
