import type { RunRecord, RunStore } from './run-store.js'

export type MemoryRunStoreOptions = { maxRetainedRuns: number }

/** Runs in a Map (insertion order = creation order, which the eviction of old runs relies on). */
export function createMemoryRunStore({ maxRetainedRuns }: MemoryRunStoreOptions): RunStore {
  const runs = new Map<string, RunRecord>()

  return {
    async create(record) {
      runs.set(record.runId, record)
    },
    async get(tenant, runId) {
      const record = runs.get(runId)
      return record?.tenant === tenant ? copyOf(record) : undefined
    },
    async appendToolUseId(runId, toolUseId) {
      runs.get(runId)?.toolUseIds.push(toolUseId)
    },
    async appendResult(runId, result, blob) {
      const record = runs.get(runId)
      if (!record) return
      record.results.push(result)
      if (blob) record.blobs.push(blob)
    },
    async complete(runId, completion) {
      const record = runs.get(runId)
      if (!record) return
      Object.assign(record, completion)
    },
    async sweep(now) {
      const removed: RunRecord[] = []
      for (const record of runs.values()) {
        if (record.expiresAt !== undefined && record.expiresAt <= now) removed.push(record)
      }
      for (const record of removed) runs.delete(record.runId)
      // Over the bound: drop the oldest finished runs; running ones are never evicted.
      let excess = runs.size - maxRetainedRuns
      for (const record of runs.values()) {
        if (excess <= 0) break
        if (record.status === 'running') continue
        runs.delete(record.runId)
        removed.push(record)
        excess--
      }
      return removed
    },
  }
}

/**
 * What a reader gets: its own record and arrays, so nothing it does reaches the store. The blocks
 * inside are shared: results are never changed once appended. A deep `structuredClone` per read
 * was a visible share of every wait-mode request (docs/adr/0171-run-record-read-without-deep-clone.md).
 */
function copyOf(record: RunRecord): RunRecord {
  return { ...record, toolUseIds: [...record.toolUseIds], results: [...record.results], blobs: [...record.blobs] }
}
