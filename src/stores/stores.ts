import type { Logger } from '../logging/logger.js'
import type { AuditStore } from './audit-store.js'
import type { CallJournal } from './call-journal.js'
import type { EventStore } from './event-store.js'
import type { IdempotencyStore } from './idempotency-store.js'
import type { McpSessionStore } from './mcp-session-store.js'
import type { RunCoordination } from './run-coordination.js'
import type { RunStore } from './run-store.js'
import type { SessionStore } from './session-store.js'

export type Stores = {
  runs: RunStore
  events: EventStore
  sessions: SessionStore
  idempotency: IdempotencyStore
  audit: AuditStore
  mcpSessions: McpSessionStore
  /** Managed Agents calls by session and tool_use id (docs/adr/0402). */
  callJournal: CallJournal
}

export type StoreLimits = { maxRetainedRuns: number; sessionIdleTtlMs: number }

/** How long audit records are kept and how many (docs/adr/0245-audit-trail.md). */
export type AuditLimits = { auditTtlMs: number; auditMaxRecords: number }

/** The defaults of TOOLEXEC_AUDIT_TTL_MS and TOOLEXEC_AUDIT_MAX_RECORDS. */
export const DEFAULT_AUDIT_LIMITS: AuditLimits = { auditTtlMs: 30 * 24 * 60 * 60 * 1000, auditMaxRecords: 100_000 }

/** What a backend is opened with: the limits, and where the service keeps its files. */
export type StoreBackendOptions = StoreLimits &
  Partial<AuditLimits> & {
    sweepIntervalMs: number
    runTtlMs: number
    instanceLeaseMs: number
    /** With TOOLEXEC_REDIS_URL: the Redis to open. */
    redisUrl?: string | undefined
    workspace: string
    blobDir: string
  }

/**
 * An opened backend. `coordination` exists where several instances share the stores; its
 * `available()` is the backend's readiness (false while Redis is unreachable or its start-up
 * checks have not passed), so callers never need to know which backend they have.
 */
export type OpenedStores = {
  stores: Stores
  coordination: RunCoordination | undefined
  /** For the start log. */
  description: Record<string, unknown>
  close(): Promise<void>
}

/**
 * One backend (docs/adr/0286-one-folder-per-store-backend.md): a folder under `src/stores/`
 * with one factory that owns its start-up and readiness. Rejects with a `ConfigError` when the
 * backend can never work as configured.
 */
export type StoreBackend = (options: StoreBackendOptions, log: Logger) => Promise<OpenedStores>

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
