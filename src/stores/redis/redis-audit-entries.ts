import type { AuditEntry, AuditRecord } from '../audit-store.js'

/** A stream id `<ms>-<seq>`, as numbers that cannot lose digits. */
export type AuditStreamId = { ms: bigint; seq: bigint }

export function parseAuditId(id: string): AuditStreamId {
  const dash = id.indexOf('-')
  return { ms: BigInt(id.slice(0, dash)), seq: BigInt(id.slice(dash + 1)) }
}

/** Whether `id` sorts before `than`, as Redis orders stream ids. */
export function isBefore(id: AuditStreamId, than: AuditStreamId): boolean {
  return id.ms < than.ms || (id.ms === than.ms && id.seq < than.seq)
}

/**
 * The records of one audit stream entry, newest first, each with its id
 * (docs/adr/0510-an-audit-batch-is-one-stream-entry.md): an entry `n`/`b` holds `n` records,
 * the last of which has the entry's id and the others the seqs before it; an entry written one
 * record at a time (field `r`) is that record under the entry's id.
 */
export function auditRecordsOf(entryId: string, fields: readonly string[]): AuditRecord[] {
  if (fields[0] !== 'n') return [{ ...(JSON.parse(fields[1] ?? '{}') as AuditEntry), id: entryId }]
  const entries = JSON.parse(fields[3] ?? '[]') as AuditEntry[]
  const { ms, seq } = parseAuditId(entryId)
  const records: AuditRecord[] = []
  for (let index = entries.length - 1; index >= 0; index--) {
    const offset = BigInt(entries.length - 1 - index)
    records.push({ ...entries[index]!, id: `${ms}-${seq - offset}` })
  }
  return records
}
