import type { Redis } from 'ioredis'
import { type AuditEntry, type AuditRecord, type AuditStore, matchesAuditQuery } from '../audit-store.js'
import { AUDIT_APPEND_SCRIPT } from './redis-audit-append-script.js'
import { type AuditStreamId, auditRecordsOf, isBefore, parseAuditId } from './redis-audit-entries.js'
import { redisKeys } from './redis-keys.js'

export type RedisAuditStoreOptions = { redis: Redis; ttlMs: number; maxRecords: number }

type AppendCommand = { toolexecAuditAppend(...args: (string | number)[]): Promise<number> }

// Entries read per round trip while a filtered page fills.
const BATCH = 200
// The highest seq of a stream id: `<ms>-<this>` is the last id of a millisecond.
const LAST_SEQ = '18446744073709551615'

/**
 * The audit trail on Redis: one stream per tenant, one entry per tenant and batch holding its
 * records, each record with an id of its own derived from the entry's
 * (docs/adr/0510-an-audit-batch-is-one-stream-entry.md); trimmed by time (the TTL) and to the
 * record bound per tenant (docs/adr/0511-the-audit-bound-counts-records.md); the keys expire a
 * TTL after the last record. Record ids are the cursors (docs/adr/0245-audit-trail.md).
 */
export function createRedisAuditStore({ redis, ttlMs, maxRecords }: RedisAuditStoreOptions): AuditStore {
  redis.defineCommand('toolexecAuditAppend', { lua: AUDIT_APPEND_SCRIPT })
  return {
    async append(entries) {
      if (entries.length === 0) return
      const byTenant = new Map<string, AuditEntry[]>()
      for (const entry of entries) {
        const records = byTenant.get(entry.tenant)
        if (records === undefined) byTenant.set(entry.tenant, [entry])
        else records.push(entry)
      }
      const keys: string[] = []
      const values: string[] = []
      for (const [tenant, records] of byTenant) {
        keys.push(redisKeys.audit(tenant), redisKeys.auditHeld(tenant))
        values.push(String(records.length), JSON.stringify(records))
      }
      await (redis as unknown as AppendCommand).toolexecAuditAppend(
        keys.length,
        ...keys,
        String(Date.now() - ttlMs),
        String(maxRecords),
        String(ttlMs),
        ...values,
      )
    },
    async list(query) {
      const key = redisKeys.audit(query.tenant)
      const oldest = `${Date.now() - ttlMs}-0`
      const cursor: AuditStreamId | undefined = query.cursor === undefined ? undefined : parseAuditId(query.cursor)
      // The entry holding the cursor's record has an id at or after it, in the same millisecond.
      let end = cursor === undefined ? '+' : `${cursor.ms}-${LAST_SEQ}`
      const page: AuditRecord[] = []
      for (;;) {
        const batch = await redis.xrevrange(key, end, oldest, 'COUNT', BATCH)
        for (const [id, fields] of batch) {
          for (const record of auditRecordsOf(id, fields)) {
            if (cursor !== undefined && !isBefore(parseAuditId(record.id), cursor)) continue
            if (!matchesAuditQuery(record, query)) continue
            if (page.length === query.limit) return { records: page, next: page.at(-1)!.id }
            page.push(record)
          }
        }
        if (batch.length < BATCH) return { records: page }
        end = `(${batch.at(-1)![0]}`
      }
    },
  }
}
