import type { ToolResultBlock } from '../../messages/content-blocks.js'
import { cursorOf, isBefore, matchesRunQuery, newestFirst } from '../run-list-filter.js'
import type { RunRecord, RunStore } from '../run-store.js'

export type MemoryRunStoreOptions = {
  maxRetainedRuns: number
  /** Told of the finished runs dropped over the bound at completion (their events and keys go too). */
  onEvicted?: (records: RunRecord[]) => void
}

/** Runs in a Map (insertion order = creation order, which the eviction of old runs relies on). */
export function createMemoryRunStore({ maxRetainedRuns, onEvicted }: MemoryRunStoreOptions): RunStore {
  const runs = new Map<string, RunRecord>()
  const held = new Map<string, Map<string, ToolResultBlock>>()
  const answers = new Map<string, Map<string, unknown>>()
  /**
   * The bound holds between sweeps too: a burst of runs would otherwise keep every finished run
   * (records and events) until the next sweep, a minute away by default, and the heap and its GC
   * grew with them (docs/adr/0176-retained-runs-bounded-at-completion.md). Evicting a little
   * below the bound in one go keeps the scan past running runs rare.
   */
  const slack = Math.max(16, Math.floor(maxRetainedRuns / 100))
  const evictOverBound = (completedRunId: string) => {
    if (runs.size <= maxRetainedRuns + slack) return
    // The run completing now is read back by its caller at once: it is never the one dropped.
    const removed = dropOldestFinished(runs, runs.size - maxRetainedRuns, completedRunId)
    if (removed.length > 0) onEvicted?.(removed)
  }

  return {
    async create(record) {
      runs.set(record.runId, record)
    },
    async holdResult(runId, result) {
      if (!runs.has(runId)) return
      let results = held.get(runId)
      if (!results) {
        results = new Map()
        held.set(runId, results)
      }
      results.set(result.tool_use_id, result)
    },
    async heldResults(runId) {
      return new Map(held.get(runId))
    },
    async get(tenant, runId) {
      const record = runs.get(runId)
      return record?.tenant === tenant ? copyOf(record) : undefined
    },
    async appendToolUseId(runId, toolUseId, tool) {
      const record = runs.get(runId)
      if (!record) return
      record.toolUseIds.push(toolUseId)
      if (!record.tools?.includes(tool)) record.tools = [...(record.tools ?? []), tool]
    },
    async storeAnswer(runId, requestId, answer) {
      if (!runs.has(runId)) return
      const stored = answers.get(runId) ?? new Map<string, unknown>()
      if (!stored.has(requestId)) stored.set(requestId, answer)
      answers.set(runId, stored)
    },
    async storedAnswers(runId) {
      return new Map(answers.get(runId))
    },
    async setOpenAsks(runId, asks) {
      const record = runs.get(runId)
      if (record) record.openAsks = [...asks]
    },
    async setStalled(runId, since) {
      const record = runs.get(runId)
      if (!record) return
      if (since === undefined) delete record.stalledSince
      else record.stalledSince = since
    },
    async list(query) {
      // Insertion order is creation order: walked from the newest end. Runs created in the same
      // millisecond are in insertion order there, but pages are cut by id among them (isBefore):
      // a page takes its last millisecond whole and sorts it, or the next page would skip or
      // repeat some of its runs.
      const all = [...runs.values()]
      const found: RunRecord[] = []
      let more = false
      for (let index = all.length - 1; index >= 0; index--) {
        const record = all[index]!
        if (record.tenant !== query.tenant) continue
        if (query.cursor && !isBefore(record, query.cursor)) continue
        if (!matchesRunQuery(record, query)) continue
        if (found.length >= query.limit && record.createdAt !== found[query.limit - 1]!.createdAt) {
          more = true
          break
        }
        found.push(record)
      }
      found.sort(newestFirst)
      const records = found.slice(0, query.limit).map(copyOf)
      return more || found.length > query.limit ? { records, next: cursorOf(records.at(-1)!) } : { records }
    },
    async appendResults(runId, results) {
      runs.get(runId)?.results.push(...results)
    },
    async complete(runId, completion) {
      held.delete(runId)
      answers.delete(runId)
      const record = runs.get(runId)
      if (!record) return
      Object.assign(record, completion)
      delete record.openAsks
      delete record.resume
      evictOverBound(runId)
    },
    async sweep(now) {
      const removed: RunRecord[] = []
      for (const record of runs.values()) {
        if (record.expiresAt !== undefined && record.expiresAt <= now) removed.push(record)
      }
      for (const record of removed) runs.delete(record.runId)
      // Over the bound: drop the oldest finished runs; running ones are never evicted.
      removed.push(...dropOldestFinished(runs, runs.size - maxRetainedRuns))
      return removed
    },
  }
}

/** Removes up to `count` finished runs, oldest first; running ones (and `keep`) stay. */
function dropOldestFinished(runs: Map<string, RunRecord>, count: number, keep?: string): RunRecord[] {
  const removed: RunRecord[] = []
  for (const record of runs.values()) {
    if (removed.length >= count) break
    if (record.status === 'running' || record.runId === keep) continue
    removed.push(record)
  }
  for (const record of removed) runs.delete(record.runId)
  return removed
}

/**
 * What a reader gets: its own record and arrays, so nothing it does reaches the store. The blocks
 * inside are shared: results are never changed once appended. A deep `structuredClone` per read
 * was a visible share of every wait-mode request (docs/adr/0171-run-record-read-without-deep-clone.md).
 */
function copyOf(record: RunRecord): RunRecord {
  return {
    ...record,
    toolUseIds: [...record.toolUseIds],
    results: [...record.results],
    blobs: [...record.blobs],
    ...(record.openAsks ? { openAsks: [...record.openAsks] } : {}),
  }
}
