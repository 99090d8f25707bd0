import type { RunStatus } from '../../events/run-event.js'
import type { OpenAsk, ResumeSpec, RunRecord } from '../run-store.js'

/** What a run's hash holds in its `fixed` field: written once at creation. */
export type FixedRunFields = Pick<RunRecord, 'runId' | 'tenant' | 'sessionId' | 'mode' | 'createdAt' | 'idempotencyKey'>

/** A run's hash as a record without its lists (the list of runs needs no results). */
export function recordOf(hash: Record<string, string>, tenant: string): RunRecord | undefined {
  if (!hash?.fixed) return undefined
  const fixed = JSON.parse(hash.fixed) as FixedRunFields
  if (fixed.tenant !== tenant) return undefined
  const tools = Object.keys(hash)
    .filter((field) => field.startsWith('tool:'))
    .map((field) => field.slice(5))
  return {
    ...fixed,
    status: hash.status as RunStatus,
    toolUseIds: [],
    results: [],
    blobs: [],
    tools,
    ...(hash.finishedAt === undefined ? {} : { finishedAt: hash.finishedAt }),
    ...(hash.expiresAt === undefined ? {} : { expiresAt: Number(hash.expiresAt) }),
    ...(hash.cancelReason === 'shutdown' ? { cancelReason: 'shutdown' as const } : {}),
    ...(hash.openAsks === undefined ? {} : { openAsks: JSON.parse(hash.openAsks) as OpenAsk[] }),
    ...(hash.stalledSince === undefined ? {} : { stalledSince: hash.stalledSince }),
    ...(hash.resume === undefined ? {} : { resume: JSON.parse(hash.resume) as ResumeSpec }),
  }
}
