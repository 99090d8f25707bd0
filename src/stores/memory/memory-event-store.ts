import { createEventClock } from '../../events/event-clock.js'
import type { RunEvent, RunEventBody } from '../../events/run-event.js'
import type { EventListener, EventStore } from '../event-store.js'

type RunLog = { events: RunEvent[]; listeners: Set<EventListener> }

/**
 * Event logs in memory; listeners are called synchronously, in order, inside `append`. The body
 * handed to `append` becomes the event: it is stamped in place rather than copied (its owner, the
 * run, never reuses it; docs/adr/0170-events-stamped-in-place.md).
 */
export function createMemoryEventStore(timestamp: () => string = createEventClock()): EventStore {
  const logs = new Map<string, RunLog>()
  const logOf = (runId: string): RunLog => {
    let log = logs.get(runId)
    if (!log) {
      log = { events: [], listeners: new Set() }
      logs.set(runId, log)
    }
    return log
  }

  function append(runId: string, body: RunEventBody): RunEvent {
    const log = logOf(runId)
    // Same key order as a copy `{ ...body, seq, run_id, ts }` would have: clients see no change.
    const event = body as RunEvent
    event.seq = log.events.length + 1
    event.run_id = runId
    event.ts = timestamp()
    log.events.push(event)
    // A copy only when someone listens: a listener may unsubscribe while it is called.
    if (log.listeners.size > 0) for (const listener of [...log.listeners]) deliver(listener, event)
    return event
  }

  return {
    async append(runId, body) {
      return append(runId, body)
    },
    async appendBatch(runId, bodies) {
      return bodies.map((body) => append(runId, body))
    },
    async read(runId, afterSeq) {
      return (logs.get(runId)?.events ?? []).slice(Math.max(0, afterSeq))
    },
    async subscribe(runId, afterSeq, listener) {
      const log = logOf(runId)
      // Backlog and registration in one synchronous step: nothing can be appended in between.
      for (const event of log.events.slice(Math.max(0, afterSeq))) deliver(listener, event)
      log.listeners.add(listener)
      return () => {
        log.listeners.delete(listener)
      }
    },
    async delete(runId) {
      logs.delete(runId)
    },
  }
}

/** One faulty subscriber must not stop the others, or the run that appends. */
function deliver(listener: EventListener, event: RunEvent): void {
  try {
    listener(event)
  } catch {
    // The subscriber's own problem: it is not told again.
  }
}
