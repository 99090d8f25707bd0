/**
 * Waits for the service's idle compaction (docs/adr/0162, 0435) and says whether it came, from
 * its public `/metrics` only: prom-client's count of major collections and the heap's committed
 * size. The load burst reads its RSS before and after in this same state (docs/adr/0518).
 */
import { setTimeout as delay } from 'node:timers/promises'

type HeapReading = { majorCollections: number; heapTotalBytes: number }

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

async function readHeap(baseUrl: string): Promise<HeapReading> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text()
  return {
    majorCollections: sample(text, 'nodejs_gc_duration_seconds_count{kind="major"}'),
    heapTotalBytes: sample(text, 'nodejs_heap_size_total_bytes'),
  }
}

/**
 * The heap's highest committed size while a load runs, read every 250 ms from before it starts:
 * the compaction can come in the moment between the load's end and the first reading after it.
 */
export function watchHeap(baseUrl: string): { stop(): Promise<{ start: HeapReading; highestBytes: number }> } {
  const start = readHeap(baseUrl)
  let highest = 0
  let watching = true
  const loop = (async () => {
    while (watching) {
      highest = Math.max(highest, (await readHeap(baseUrl).catch(() => undefined))?.heapTotalBytes ?? 0)
      await delay(250)
    }
  })()
  return {
    async stop() {
      watching = false
      await loop
      return { start: await start, highestBytes: highest }
    },
  }
}

/**
 * Polls `/metrics` every 250 ms after a load until a major collection since the load began
 * (`watched.start`) has left the heap `MIN_DROP` below its highest, or `timeoutS` passed. Idle
 * waiting: the loop must stay idle for the compaction to run at all, and these probes are a
 * few per second.
 */
export async function waitForCompaction(
  baseUrl: string,
  watched: { start: HeapReading; highestBytes: number },
  startedAt: number,
  timeoutS = 15,
): Promise<CompactionState> {
  let highest = watched.highestBytes
  for (;;) {
    const now = await readHeap(baseUrl)
    highest = Math.max(highest, now.heapTotalBytes)
    const waitedS = Math.round((performance.now() - startedAt) / 100) / 10
    const heapTotalMb = Math.round(now.heapTotalBytes / 2 ** 17) / 8
    if (now.majorCollections > watched.start.majorCollections && now.heapTotalBytes <= highest - MIN_DROP)
      return { state: 'compacted', waitedS, heapTotalMb }
    if (waitedS >= timeoutS) return { state: 'not compacted', waitedS, heapTotalMb }
    await delay(250)
  }
}
