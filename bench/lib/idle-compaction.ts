/**
 * Waits for the service's idle compaction (docs/adr/0162, 0435) and says whether it came, from
 * its public `/metrics` only: prom-client's count of major collections and the heap's committed
 * size. The load burst reads its RSS before and after in this same state (docs/adr/0518).
 */
import { setTimeout as delay } from 'node:timers/promises'

export type HeapReading = { majorCollections: number; heapTotalBytes: number }

export type CompactionState = {
  /** `compacted`: a major collection after the mark shrank the heap by `MIN_DROP` or more. */
  state: 'compacted' | 'not compacted'
  /** From the mark to the reading (s). */
  waitedS: number
  heapTotalMb: number
}

/** The idle compaction gives back tens of MB; V8's own collections after a stretch of work rarely shrink the heap this much. */
const MIN_DROP = 4 * 2 ** 20

function sample(text: string, name: string): number {
  const line = text.split('\n').find((row) => row.startsWith(name))
  return Number(line?.slice(line.lastIndexOf(' ') + 1) ?? Number.NaN)
}

export async function readHeap(baseUrl: string): Promise<HeapReading> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text()
  return {
    majorCollections: sample(text, 'nodejs_gc_duration_seconds_count{kind="major"}'),
    heapTotalBytes: sample(text, 'nodejs_heap_size_total_bytes'),
  }
}

/**
 * Polls `/metrics` every 250 ms from `mark` (a reading taken when the load ended) until a major
 * collection has shrunk the heap, or `timeoutS` passed. Idle waiting: the loop must stay idle for
 * the compaction to run at all, and these probes are a few per second.
 */
export async function waitForCompaction(
  baseUrl: string,
  mark: HeapReading,
  startedAt: number,
  timeoutS = 15,
): Promise<CompactionState> {
  let highest = mark.heapTotalBytes
  for (;;) {
    const now = await readHeap(baseUrl)
    highest = Math.max(highest, now.heapTotalBytes)
    const waitedS = Math.round((performance.now() - startedAt) / 100) / 10
    const heapTotalMb = Math.round(now.heapTotalBytes / 2 ** 17) / 8
    if (now.majorCollections > mark.majorCollections && now.heapTotalBytes <= highest - MIN_DROP)
      return { state: 'compacted', waitedS, heapTotalMb }
    if (waitedS >= timeoutS) return { state: 'not compacted', waitedS, heapTotalMb }
    await delay(250)
  }
}
