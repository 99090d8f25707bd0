import type { Redis } from 'ioredis'
import type { McpSessionRecord, McpSessionStore } from '../mcp-session-store.js'
import { redisKeys } from './redis-keys.js'

/**
 * MCP sessions as one JSON string each, expiring by TTL (restarted by every request), and two
 * sorted sets by expiry time for the caps: members past their time are dropped when counted.
 */
export function createRedisMcpSessionStore({ redis }: { redis: Redis }): McpSessionStore {
  const member = (tenant: string, id: string) => `${tenant}\u0000${id}`

  return {
    async create(record, idleTtlMs, now) {
      const expires = now + idleTtlMs
      await redis
        .multi()
        .set(redisKeys.mcpSession(record.mcpSessionId), JSON.stringify(record), 'PX', idleTtlMs)
        .zadd(redisKeys.mcpSessionsOfTenant(record.tenant), expires, record.mcpSessionId)
        .zadd(redisKeys.mcpSessionsAll, expires, member(record.tenant, record.mcpSessionId))
        .exec()
    },
    async touch(tenant, mcpSessionId, idleTtlMs, now) {
      const key = redisKeys.mcpSession(mcpSessionId)
      const [[, raw] = [null, null]] = (await redis.multi().get(key).pexpire(key, idleTtlMs).exec()) ?? []
      if (typeof raw !== 'string') return undefined
      const record = JSON.parse(raw) as McpSessionRecord
      // Another tenant's session is as unknown as an expired one; its clock is not ours to restart,
      // but restarting it costs that tenant nothing.
      if (record.tenant !== tenant) return undefined
      const expires = now + idleTtlMs
      await redis
        .multi()
        .zadd(redisKeys.mcpSessionsOfTenant(tenant), expires, mcpSessionId)
        .zadd(redisKeys.mcpSessionsAll, expires, member(tenant, mcpSessionId))
        .exec()
      return record
    },
    async delete(tenant, mcpSessionId) {
      const key = redisKeys.mcpSession(mcpSessionId)
      const raw = await redis.get(key)
      if (raw === null) return undefined
      const record = JSON.parse(raw) as McpSessionRecord
      if (record.tenant !== tenant) return undefined
      const [[, removed] = [null, 0]] =
        (await redis
          .multi()
          .del(key)
          .zrem(redisKeys.mcpSessionsOfTenant(tenant), mcpSessionId)
          .zrem(redisKeys.mcpSessionsAll, member(tenant, mcpSessionId))
          .exec()) ?? []
      // Of two DELETEs on two instances, one ends the session.
      return removed === 1 ? record : undefined
    },
    async count(tenant, now) {
      const results =
        (await redis
          .multi()
          .zremrangebyscore(redisKeys.mcpSessionsOfTenant(tenant), '-inf', now)
          .zremrangebyscore(redisKeys.mcpSessionsAll, '-inf', now)
          .zcard(redisKeys.mcpSessionsOfTenant(tenant))
          .zcard(redisKeys.mcpSessionsAll)
          .exec()) ?? []
      return { tenant: Number(results[2]?.[1] ?? 0), total: Number(results[3]?.[1] ?? 0) }
    },
  }
}
