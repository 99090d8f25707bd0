import { createSerialQueue } from '../async/serial-queue.js'
import type { RunEvent, RunEventBody } from '../events/run-event.js'
import type { Logger } from '../logging/logger.js'
import type { ToolResultBlock } from '../messages/content-blocks.js'
import type { Stores } from '../stores/stores.js'

type WriterOptions = {
  runId: string
  tenant: string
  stores: Stores
  /** Sees each event once it is stored, in order (admission slots, metrics). */
  observe: (event: RunEvent, tenant: string) => void
  logger: Logger
}

/**
 * Writes one run's events in order. Events emitted in one synchronous stretch (a batch's calls
 * queued, a call's completion and result) are written together at the next microtask: one store
 * call and one queue entry per stretch instead of per event
 * (docs/adr/0174-run-events-written-in-batches.md). tool.result events also append the result to
 * the record, for polling clients.
 */
export function createRunEventWriter(options: WriterOptions) {
  const { runId, tenant, stores, logger } = options
  const writes = createSerialQueue()
  let batch: RunEventBody[] = []

  function flush(): void {
    if (batch.length === 0) return
    const bodies = batch
    batch = []
    // Sent at once, in emit order, without waiting for the write before: on Redis one connection
    // keeps the order and the writes are pipelined. The queue still observes them in order, and
    // the run completes only after `settled()`, so nothing acknowledged precedes its events.
    const results: ToolResultBlock[] = []
    for (const body of bodies) if (body.type === 'tool.result') results.push(body.result)
    const written = Promise.all([
      stores.events.appendBatch(runId, bodies),
      results.length > 0 ? stores.runs.appendResults(runId, results) : undefined,
    ])
    written.catch(() => undefined)
    writes
      .run(async () => {
        const [events] = await written
        for (const event of events) options.observe(event, tenant)
      })
      .catch((error) => logger.error({ err: error }, 'storing a run event failed'))
  }

  return {
    store(body: RunEventBody): void {
      batch.push(body)
      if (batch.length === 1) queueMicrotask(flush)
    },
    /** Other writes of the run (the streamed block ids), after whatever was emitted before them. */
    enqueue(work: () => Promise<unknown>): void {
      flush()
      writes.run(work).catch((error) => logger.error({ err: error }, 'storing a run event failed'))
    },
    /** Every write so far, emitted events included, has settled. */
    settled(): Promise<void> {
      flush()
      return writes.idle()
    },
  }
}

export type RunEventWriter = ReturnType<typeof createRunEventWriter>
