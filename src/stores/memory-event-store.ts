import type { RunEvent } from '../events/run-event.js'
import type { EventListener, EventStore } from './event-store.js'

type RunLog = { events: RunEvent[]; listeners: Set<EventListener> }

/** Event logs in memory; listeners are called synchronously, in order, inside `append`. */
export function createMemoryEventStore(now: () => Date = () => new Date()): EventStore {
  const logs = new Map<string, RunLog>()
  const logOf = (runId: string): RunLog => {
    let log = logs.get(runId)
    if (!log) {
      log = { events: [], listeners: new Set() }
      logs.set(runId, log)
    }
    return log
  }

  return {
    async append(runId, body) {
      const log = logOf(runId)
      const event = { ...body, seq: log.events.length + 1, run_id: runId, ts: now().toISOString() } as RunEvent
      log.events.push(event)
      // A copy only when someone listens: a listener may unsubscribe while it is called.
      if (log.listeners.size > 0) for (const listener of [...log.listeners]) deliver(listener, event)
      return event
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
