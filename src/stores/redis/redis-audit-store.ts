import type { Redis } from 'ioredis'
import { type AuditEntry, type AuditRecord, type AuditStore, matchesAuditQuery } from '../audit-store.js'
import { redisKeys } from './redis-keys.js'

export type RedisAuditStoreOptions = { redis: Redis; ttlMs: number; maxRecords: number }

/**
 * Appends a batch of records, each to its tenant's stream (KEYS[i] for ARGV[3 + i]); then each
 * stream touched is trimmed by time (MINID, the TTL's edge) and by count, and its expiry renewed.
 * Trimming once per stream and batch rather than in each XADD: the trim check made an audit XADD
 * cost about twice an event's inside Redis (docs/adr/0447-audit-streams-trimmed-once-per-batch.md).
 * ARGV: min id (the TTL's edge), max records per tenant, TTL in ms, then one record JSON per key.
 */
const APPEND_SCRIPT = `
local touched = {}
for i = 1, #KEYS do
  redis.call('XADD', KEYS[i], '*', 'r', ARGV[3 + i])
  touched[KEYS[i]] = true
end
for key in pairs(touched) do
  redis.call('XTRIM', key, 'MINID', '~', ARGV[1])
  redis.call('XTRIM', key, 'MAXLEN', '~', ARGV[2])
  redis.call('PEXPIRE', key, ARGV[3])
end
return #KEYS
`

type AppendCommand = { toolexecAuditAppend(...args: (string | number)[]): Promise<number> }

// Records read per round trip while a filtered page fills.
const BATCH = 200

/**
 * The audit trail on Redis: one stream per tenant, trimmed by time (MINID, the TTL) and by count
 * (the bound, per tenant) as it grows; the key itself expires a TTL after its last record.
 * Stream ids are the record ids and the cursor (docs/adr/0245-audit-trail.md).
 */
export function createRedisAuditStore({ redis, ttlMs, maxRecords }: RedisAuditStoreOptions): AuditStore {
  redis.defineCommand('toolexecAuditAppend', { lua: APPEND_SCRIPT })
  return {
    async append(entries) {
      if (entries.length === 0) return
      // One script per batch, not MULTI + an XADD per record + EXEC: the trail of a 10-call run
      // cost about 33 commands (docs/adr/0370-redis-writes-as-one-script-each.md).
      const keys = entries.map((entry) => redisKeys.audit(entry.tenant))
      await (redis as unknown as AppendCommand).toolexecAuditAppend(
        keys.length,
        ...keys,
        String(Date.now() - ttlMs),
        String(maxRecords),
        String(ttlMs),
        ...entries.map((entry) => JSON.stringify(entry)),
      )
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
