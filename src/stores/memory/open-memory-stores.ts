import { startSweeper } from '../../async/start-sweeper.js'
import type { Logger } from '../../logging/logger.js'
import type { RunRecord } from '../run-store.js'
import {
  type AuditLimits,
  DEFAULT_AUDIT_LIMITS,
  type StoreBackend,
  type StoreLimits,
  type Stores,
  sweepStores,
} from '../stores.js'
import { createMemoryAuditStore } from './memory-audit-store.js'
import { createMemoryCallJournal } from './memory-call-journal.js'
import { createMemoryEventStore } from './memory-event-store.js'
import { createMemoryIdempotencyStore } from './memory-idempotency-store.js'
import { createMemoryMcpSessionStore } from './memory-mcp-session-store.js'
import { createMemoryRunStore } from './memory-run-store.js'
import { createMemorySessionStore } from './memory-session-store.js'

/** The embedded default: everything in this process's memory. */
export function createMemoryStores(limits: Pick<StoreLimits, 'maxRetainedRuns'> & Partial<AuditLimits>): Stores {
  const audit = { ...DEFAULT_AUDIT_LIMITS, ...definedOf(limits) }
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
    audit: createMemoryAuditStore({ ttlMs: audit.auditTtlMs, maxRecords: audit.auditMaxRecords }),
    mcpSessions: createMemoryMcpSessionStore(),
    callJournal: createMemoryCallJournal(),
  }
}

const definedOf = (limits: Partial<AuditLimits>): Partial<AuditLimits> => ({
  ...(limits.auditTtlMs === undefined ? {} : { auditTtlMs: limits.auditTtlMs }),
  ...(limits.auditMaxRecords === undefined ? {} : { auditMaxRecords: limits.auditMaxRecords }),
})

/** Sweeps `stores` on a timer: expired runs with their events and keys, idle sessions. Returns the stop. */
function sweepOnTimer(stores: Stores, options: StoreLimits & { sweepIntervalMs: number }, log: Logger) {
  return startSweeper(
    async () => {
      const removed = await sweepStores(stores, options)
      if (removed.runs + removed.sessions > 0) log.debug(removed, 'swept expired runs and sessions')
    },
    options.sweepIntervalMs,
    (error) => log.error({ err: error }, 'sweeping the stores failed'),
  )
}

/**
 * The embedded backend: the stores in this process, swept on a timer; always ready, shared with
 * no other instance. `stores` lets a test hand in its own.
 */
export function memoryBackend(stores?: Stores): StoreBackend {
  return async (options, log) => {
    const opened = stores ?? createMemoryStores(options)
    const stop = sweepOnTimer(opened, options, log)
    return {
      stores: opened,
      coordination: undefined,
      description: { backend: 'memory' },
      close: async () => stop(),
    }
  }
}
