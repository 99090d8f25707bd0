import type { EventStore } from './event-store.js'
import type { IdempotencyStore } from './idempotency-store.js'
import { createMemoryEventStore } from './memory-event-store.js'
import { createMemoryIdempotencyStore } from './memory-idempotency-store.js'
import { createMemoryRunStore } from './memory-run-store.js'
import { createMemorySessionStore } from './memory-session-store.js'
import type { RunRecord, RunStore } from './run-store.js'
import type { SessionStore } from './session-store.js'

export type Stores = {
  runs: RunStore
  events: EventStore
  sessions: SessionStore
  idempotency: IdempotencyStore
}

export type StoreLimits = { maxRetainedRuns: number; sessionIdleTtlMs: number }

/** The embedded default: everything in this process's memory. */
export function createMemoryStores(limits: Pick<StoreLimits, 'maxRetainedRuns'>): Stores {
  const events = createMemoryEventStore()
  const idempotency = createMemoryIdempotencyStore()
  // A run evicted at completion takes its events and key with it, as a swept one does.
  const onEvicted = (records: RunRecord[]) => {
    for (const record of records) {
      void events.delete(record.runId)
      if (record.idempotencyKey !== undefined)
        void idempotency.release(record.tenant, record.idempotencyKey, record.runId)
    }
  }
  return {
    runs: createMemoryRunStore({ maxRetainedRuns: limits.maxRetainedRuns, onEvicted }),
    events,
    sessions: createMemorySessionStore(),
    idempotency,
  }
}

/**
 * One sweep over every store: expired runs take their events and idempotency key with them,
 * idle sessions go. Returns what was removed, for the log.
 */
export async function sweepStores(stores: Stores, limits: StoreLimits, now = Date.now()) {
  const runs = await stores.runs.sweep(now)
  for (const run of runs) {
    await stores.events.delete(run.runId)
    if (run.idempotencyKey !== undefined) await stores.idempotency.release(run.tenant, run.idempotencyKey, run.runId)
  }
  const sessions = await stores.sessions.sweep(now, limits.sessionIdleTtlMs)
  return { runs: runs.length, sessions }
}
