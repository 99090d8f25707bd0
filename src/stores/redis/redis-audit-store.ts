import type { Redis } from 'ioredis'
import { type AuditEntry, type AuditRecord, type AuditStore, matchesAuditQuery } from '../audit-store.js'
import { redisKeys } from './redis-keys.js'

export type RedisAuditStoreOptions = { redis: Redis; ttlMs: number; maxRecords: number }

// Records read per round trip while a filtered page fills.
const BATCH = 200

/**
 * The audit trail on Redis: one stream per tenant, trimmed by time (MINID, the TTL) and by count
 * (the bound, per tenant) as it grows; the key itself expires a TTL after its last record.
 * Stream ids are the record ids and the cursor (docs/adr/0245-audit-trail.md).
 */
export function createRedisAuditStore({ redis, ttlMs, maxRecords }: RedisAuditStoreOptions): AuditStore {
  return {
    async append(entries) {
      if (entries.length === 0) return
      const minId = String(Date.now() - ttlMs)
      const multi = redis.multi()
      const tenants = new Set<string>()
      for (const entry of entries) {
        const key = redisKeys.audit(entry.tenant)
        tenants.add(entry.tenant)
        multi.xadd(key, 'MINID', '~', minId, '*', 'r', JSON.stringify(entry))
      }
      for (const tenant of tenants) {
        multi.xtrim(redisKeys.audit(tenant), 'MAXLEN', '~', maxRecords)
        multi.pexpire(redisKeys.audit(tenant), ttlMs)
      }
      const replies = await multi.exec()
      const failed = replies?.find(([error]) => error)
      if (failed) throw failed[0]
    },
    async list(query) {
      const key = redisKeys.audit(query.tenant)
      const oldest = `${Date.now() - ttlMs}-0`
      let end = query.cursor === undefined ? '+' : `(${query.cursor}`
      const page: AuditRecord[] = []
      for (;;) {
        const batch = await redis.xrevrange(key, end, oldest, 'COUNT', BATCH)
        for (const [id, fields] of batch) {
          const record = { ...(JSON.parse(fields[1] ?? '{}') as AuditEntry), id }
          if (!matchesAuditQuery(record, query)) continue
          if (page.length === query.limit) return { records: page, next: page.at(-1)!.id }
          page.push(record)
        }
        if (batch.length < BATCH) return { records: page }
        end = `(${batch.at(-1)![0]}`
      }
    },
  }
}
