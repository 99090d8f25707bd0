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

/**
 * A new session: its hash, held by a run (ARGV[4]) or else expiring when idle, and its place in
 * the tenant's and the global session sets (by the time its idle TTL runs out).
 * KEYS: session, tenant's sessions, all sessions. ARGV: fixed JSON, state JSON, lastUsedAt,
 * activeRunId ('' for none), idle TTL, expiry score, member in the tenant's set, member in all.
 */
const CREATE_SCRIPT = `
redis.call('HSET', KEYS[1], 'fixed', ARGV[1], 'state', ARGV[2], 'lastUsedAt', ARGV[3])
if ARGV[4] ~= '' then redis.call('HSET', KEYS[1], 'activeRunId', ARGV[4])
else redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
redis.call('ZADD', KEYS[2], ARGV[6], ARGV[7])
redis.call('ZADD', KEYS[3], ARGV[6], ARGV[8])
return 1
`

/** KEYS: session, tenant's sessions, all sessions. ARGV: the members. Answers how many hashes went. */
const DELETE_SCRIPT = `
local deleted = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[2])
return deleted
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
  redis.defineCommand('toolexecCreateSession', { numberOfKeys: 3, lua: CREATE_SCRIPT })
  redis.defineCommand('toolexecDeleteSession', { numberOfKeys: 3, lua: DELETE_SCRIPT })
  const commands = redis as unknown as SessionCommands

  return {
    async create(record) {
      const key = redisKeys.session(record.tenant, record.sessionId)
      // Everything that is neither state, nor use, nor the claim is fixed at creation: kept whole,
      // so a field added to the record cannot be dropped here (toolsets once was).
      const { cwd, permissionContext, readFileState, todos, lastUsedAt, activeRunId, ...fixed } = record
      const expires = record.lastUsedAt + idleTtlMs
      // One script rather than MULTI, four writes and EXEC (docs/adr/0370-redis-writes-as-one-script-each.md).
      await commands.toolexecCreateSession(
        key,
        redisKeys.sessionsOfTenant(record.tenant),
        redisKeys.sessionsAll,
        JSON.stringify(fixed),
        stateJson(record),
        String(record.lastUsedAt),
        record.activeRunId ?? '',
        String(idleTtlMs),
        String(expires),
        record.sessionId,
        `${record.tenant}\u0000${record.sessionId}`,
      )
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
      const deleted = await commands.toolexecDeleteSession(
        redisKeys.session(tenant, sessionId),
        redisKeys.sessionsOfTenant(tenant),
        redisKeys.sessionsAll,
        sessionId,
        `${tenant}\u0000${sessionId}`,
      )
      return deleted > 0
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
  toolexecCreateSession(...args: string[]): Promise<number>
  toolexecDeleteSession(...args: string[]): Promise<number>
}
