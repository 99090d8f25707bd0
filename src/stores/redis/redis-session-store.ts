import type { Redis } from 'ioredis'
import type { ToolPermissionContext } from '../../tool/permission-context.js'
import type { FileReadRecord, Todo } from '../../tool/tool.js'
import type { SessionRecord, SessionState, SessionStore } from '../session-store.js'
import { redisKeys } from './redis-keys.js'

/** ARGV: runId, now. Missing, busy (held by another run), or claimed; a held session never expires. */
const CLAIM_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
local active = redis.call('HGET', KEYS[1], 'activeRunId')
if active and active ~= ARGV[1] then return 'busy' end
redis.call('HSET', KEYS[1], 'activeRunId', ARGV[1], 'lastUsedAt', ARGV[2])
redis.call('PERSIST', KEYS[1])
return 'claimed'
`

/** ARGV: runId, now, idle TTL, state JSON ('' keeps the state). Only the holder frees it. */
const RELEASE_SCRIPT = `
if redis.call('HGET', KEYS[1], 'activeRunId') ~= ARGV[1] then return 0 end
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'state', ARGV[4]) end
redis.call('HDEL', KEYS[1], 'activeRunId')
redis.call('HSET', KEYS[1], 'lastUsedAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`

type StoredState = {
  cwd: string
  permissionContext: ToolPermissionContext
  readFileState: [string, FileReadRecord][]
  todos: readonly Todo[]
}

export type RedisSessionStoreOptions = { redis: Redis; idleTtlMs: number }

/**
 * Sessions as one hash each: fixed fields, the state a run hands back, the holder and the last
 * use. The one-run-at-a-time claim is a script, so it holds across instances; idle sessions
 * expire by TTL (set whenever no run holds them), not by a sweep.
 */
export function createRedisSessionStore({ redis, idleTtlMs }: RedisSessionStoreOptions): SessionStore {
  redis.defineCommand('toolexecClaimSession', { numberOfKeys: 1, lua: CLAIM_SCRIPT })
  redis.defineCommand('toolexecReleaseSession', { numberOfKeys: 1, lua: RELEASE_SCRIPT })
  const commands = redis as unknown as SessionCommands

  return {
    async create(record) {
      const key = redisKeys.session(record.tenant, record.sessionId)
      // Everything that is neither state, nor use, nor the claim is fixed at creation: kept whole,
      // so a field added to the record cannot be dropped here (toolsets once was).
      const { cwd, permissionContext, readFileState, todos, lastUsedAt, activeRunId, ...fixed } = record
      const multi = redis
        .multi()
        .hset(key, 'fixed', JSON.stringify(fixed), 'state', stateJson(record), 'lastUsedAt', String(record.lastUsedAt))
      if (record.activeRunId !== undefined) multi.hset(key, 'activeRunId', record.activeRunId)
      else multi.pexpire(key, idleTtlMs)
      const expires = record.lastUsedAt + idleTtlMs
      multi.zadd(redisKeys.sessionsOfTenant(record.tenant), expires, record.sessionId)
      multi.zadd(redisKeys.sessionsAll, expires, `${record.tenant}\u0000${record.sessionId}`)
      await multi.exec()
    },
    async get(tenant, sessionId) {
      const hash = await redis.hgetall(redisKeys.session(tenant, sessionId))
      if (!hash.fixed || !hash.state) return undefined
      const state = JSON.parse(hash.state) as StoredState
      return {
        ...(JSON.parse(hash.fixed) as Omit<SessionRecord, keyof SessionState | 'lastUsedAt' | 'activeRunId'>),
        cwd: state.cwd,
        permissionContext: state.permissionContext,
        readFileState: new Map(state.readFileState),
        todos: state.todos,
        lastUsedAt: Number(hash.lastUsedAt),
        ...(hash.activeRunId === undefined ? {} : { activeRunId: hash.activeRunId }),
      }
    },
    async delete(tenant, sessionId) {
      const [deleted] = (await redis
        .multi()
        .del(redisKeys.session(tenant, sessionId))
        .zrem(redisKeys.sessionsOfTenant(tenant), sessionId)
        .zrem(redisKeys.sessionsAll, `${tenant}\u0000${sessionId}`)
        .exec()) as [[Error | null, number], ...unknown[]]
      return deleted[1] > 0
    },
    async count(tenant, now) {
      const results = (await redis
        .multi()
        .zremrangebyscore(redisKeys.sessionsOfTenant(tenant), '-inf', now)
        .zremrangebyscore(redisKeys.sessionsAll, '-inf', now)
        .zcard(redisKeys.sessionsOfTenant(tenant))
        .zcard(redisKeys.sessionsAll)
        .exec()) as Array<[Error | null, number]>
      return { tenant: results[2]?.[1] ?? 0, total: results[3]?.[1] ?? 0 }
    },
    claim(tenant, sessionId, runId, now) {
      return commands.toolexecClaimSession(redisKeys.session(tenant, sessionId), runId, String(now))
    },
    async release(tenant, sessionId, runId, state, now) {
      await commands.toolexecReleaseSession(
        redisKeys.session(tenant, sessionId),
        runId,
        String(now),
        String(idleTtlMs),
        state ? stateJson(state) : '',
      )
    },
    async sweep() {
      // Idle sessions expire by TTL (RELEASE_SCRIPT and `create` set it).
      return 0
    },
  }
}

function stateJson(state: SessionState): string {
  const stored: StoredState = {
    cwd: state.cwd,
    permissionContext: state.permissionContext,
    readFileState: [...state.readFileState],
    todos: state.todos,
  }
  return JSON.stringify(stored)
}

type SessionCommands = {
  toolexecClaimSession(...args: string[]): Promise<'claimed' | 'busy' | 'missing'>
  toolexecReleaseSession(...args: string[]): Promise<number>
}
