import type { RunCursor, RunListQuery, RunRecord } from './run-store.js'

/** Whether a run passes the filters of GET /v1/runs (both backends apply the same test). */
export function matchesRunQuery(record: RunRecord, query: RunListQuery): boolean {
  if (query.status !== undefined && record.status !== query.status) return false
  if (query.sessionId !== undefined && record.sessionId !== query.sessionId) return false
  if (query.hasOpenAsks !== undefined && (record.openAsks?.length ?? 0) > 0 !== query.hasOpenAsks) return false
  if (query.stalled !== undefined && (record.stalledSince !== undefined) !== query.stalled) return false
  const created = Date.parse(record.createdAt)
  if (query.createdAfter !== undefined && created <= query.createdAfter) return false
  if (query.createdBefore !== undefined && created >= query.createdBefore) return false
  return true
}

/** Newest first, ties by id descending: the order pages are cut in. */
export function isBefore(record: { createdAt: string; runId: string }, cursor: RunCursor): boolean {
  const created = Date.parse(record.createdAt)
  return created < cursor.createdAt || (created === cursor.createdAt && record.runId < cursor.runId)
}

/** The order of isBefore as a comparator: newest first, ties by id descending. */
export function newestFirst(a: { createdAt: string; runId: string }, b: { createdAt: string; runId: string }): number {
  const created = Date.parse(b.createdAt) - Date.parse(a.createdAt)
  if (created !== 0) return created
  return a.runId < b.runId ? 1 : a.runId > b.runId ? -1 : 0
}

export const cursorOf = (record: RunRecord): RunCursor => ({
  createdAt: Date.parse(record.createdAt),
  runId: record.runId,
})
