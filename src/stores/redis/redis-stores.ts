import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { type AuditLimits, DEFAULT_AUDIT_LIMITS, type StoreLimits, type Stores } from '../stores.js'
import { createRedisAuditStore } from './redis-audit-store.js'
import { createRedisCallJournal } from './redis-call-journal.js'
import { createRedisEventStore } from './redis-event-store.js'
import { createRedisIdempotencyStore } from './redis-idempotency-store.js'
import { createRedisMcpSessionStore } from './redis-mcp-session-store.js'
import { createRedisRunCoordination, type RedisRunCoordination } from './redis-run-coordination.js'
import { createRedisRunStore } from './redis-run-store.js'
import { createRedisSessionStore } from './redis-session-store.js'

export type RedisStoresOptions = StoreLimits &
  Partial<AuditLimits> & {
    url: string
    runTtlMs: number
    leaseMs: number
    instanceId?: string
  }

/** A stream can hold at most this many events; far above what TOOLEXEC_MAX_BLOCKS_PER_RUN allows. */
const MAX_EVENTS_PER_RUN = 100_000
const DAY_MS = 24 * 60 * 60 * 1000

/**
 * Every store on one Redis, plus the coordination between instances. Commands wait through an
 * outage (`maxRetriesPerRequest: null`): a write of a running run lands once Redis is back, and
 * new runs are refused meanwhile (docs/operations.md, "Redis unreachable").
 */
export function createRedisStores(options: RedisStoresOptions) {
  const connect = (autoPipelining: boolean) =>
    new Redis(options.url, {
      maxRetriesPerRequest: null,
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
      lazyConnect: false,
      // Commands issued in one event-loop turn leave in one write: the profile of the Redis mode
      // had a third of its time in a socket write per command (docs/adr/0177-redis-auto-pipelining.md).
      enableAutoPipelining: autoPipelining,
    })
  const redis = connect(true)
  // Subscriber mode takes no ordinary commands: nothing to pipeline.
  const subscriber = connect(false)
  // Errors surface as the connection status (`available`); unhandled they would crash the process.
  redis.on('error', () => undefined)
  subscriber.on('error', () => undefined)
  const instanceId = options.instanceId ?? `ins_${randomUUID()}`
  // Runs created here whose stream has no event yet (docs/adr/0371-new-runs-append-without-reading-the-stream-end.md).
  const newRuns = new Set<string>()
  const stores: Stores = {
    runs: createRedisRunStore({ redis, maxRetainedRuns: options.maxRetainedRuns, newRuns }),
    events: createRedisEventStore({
      redis,
      newRuns,
      subscriber,
      runTtlMs: options.runTtlMs,
      maxEventsPerRun: MAX_EVENTS_PER_RUN,
    }),
    sessions: createRedisSessionStore({ redis, idleTtlMs: options.sessionIdleTtlMs }),
    idempotency: createRedisIdempotencyStore({ redis, claimTtlMs: Math.max(options.runTtlMs, DAY_MS) }),
    audit: createRedisAuditStore({
      redis,
      ttlMs: options.auditTtlMs ?? DEFAULT_AUDIT_LIMITS.auditTtlMs,
      maxRecords: options.auditMaxRecords ?? DEFAULT_AUDIT_LIMITS.auditMaxRecords,
    }),
    mcpSessions: createRedisMcpSessionStore({ redis }),
    callJournal: createRedisCallJournal(redis),
  }
  const coordination: RedisRunCoordination = createRedisRunCoordination({
    redis,
    subscriber,
    instanceId,
    leaseMs: options.leaseMs,
  })
  return {
    stores,
    coordination,
    redis,
    instanceId,
    async close() {
      await coordination.close()
      redis.disconnect()
      subscriber.disconnect()
    },
  }
}

export type RedisStores = ReturnType<typeof createRedisStores>
