import { type AuditRecord, type AuditStore, matchesAuditQuery } from '../audit-store.js'

export type MemoryAuditStoreOptions = { ttlMs: number; maxRecords: number; now?: () => number }

/**
 * The audit trail in this process: a bounded list, oldest dropped first, and records past the
 * TTL dropped as they are met. Ids are `<ms>-<seq>`, zero-padded so they sort as they were made.
 */
export function createMemoryAuditStore({ ttlMs, maxRecords, now = Date.now }: MemoryAuditStoreOptions): AuditStore {
  const records: AuditRecord[] = []
  let seq = 0
  const idOf = (ms: number) => `${String(ms).padStart(15, '0')}-${String(seq++).padStart(10, '0')}`
  /**
   * Appends drop the oldest records only once `slack` of them are due: dropping a batch's worth
   * at a time moved the whole list (100,000 records by default) on every batch once it was full
   * (docs/adr/0494). A listing drops exactly what is due, so it never sees more than the bounds allow.
   */
  const slack = Math.max(16, Math.floor(maxRecords / 100))
  const trim = (exact: boolean) => {
    const oldest = now() - ttlMs
    let drop = Math.max(0, records.length - maxRecords)
    while (drop < records.length && Date.parse(records[drop]!.ts) < oldest) drop++
    if (drop > 0 && (exact || drop >= slack)) records.splice(0, drop)
  }
  return {
    async append(entries) {
      // Not `{ ...entry, id }`: V8 gave each such copy a hidden class of its own, about 300 bytes
      // a record that every retained call paid twice (docs/adr/0519-audit-records-share-their-shape.md).
      for (const entry of entries) records.push(Object.assign({}, entry, { id: idOf(now()) }))
      trim(false)
    },
    async list(query) {
      trim(true)
      const page: AuditRecord[] = []
      for (let index = records.length - 1; index >= 0; index--) {
        const record = records[index]!
        if (record.tenant !== query.tenant) continue
        if (query.cursor !== undefined && record.id >= query.cursor) continue
        if (!matchesAuditQuery(record, query)) continue
        if (page.length === query.limit) return { records: page, next: page.at(-1)!.id }
        page.push(record)
      }
      return { records: page }
    },
  }
}
