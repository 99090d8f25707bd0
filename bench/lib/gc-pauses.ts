import { PerformanceObserver, performance } from 'node:perf_hooks'

const round = (value: number) => Math.round(value * 1000) / 1000

/** This process's garbage-collection pauses while `during` runs: how many, their sum and the longest, ms. */
export async function collectionsDuring<T>(
  during: () => Promise<T>,
): Promise<{ result: T; gc: GcPauses; intervals: [number, number][] }> {
  const pauses: number[] = []
  const intervals: [number, number][] = []
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      pauses.push(entry.duration)
      const start = performance.timeOrigin + entry.startTime
      intervals.push([start, start + entry.duration])
    }
  })
  observer.observe({ entryTypes: ['gc'] })
  const result = await during()
  // Entries are delivered on a later turn.
  await new Promise((resolve) => setTimeout(resolve, 20))
  observer.disconnect()
  const totalMs = pauses.reduce((sum, pause) => sum + pause, 0)
  return {
    result,
    gc: { count: pauses.length, totalMs: round(totalMs), maxMs: round(Math.max(0, ...pauses)) },
    intervals,
  }
}

export type GcPauses = { count: number; totalMs: number; maxMs: number }
