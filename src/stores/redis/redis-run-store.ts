import type { Redis } from 'ioredis'
import type { RunStatus } from '../../events/run-event.js'
import type { ToolResultBlock } from '../../messages/content-blocks.js'
import type { BlobInfo } from '../../results/blob-store.js'
import { cursorOf, isBefore, matchesRunQuery } from '../run-list-filter.js'
import type { OpenAsk, ResumeSpec, RunRecord, RunStore } from '../run-store.js'
import { redisKeys } from './redis-keys.js'

/**
 * Completes a run in one step: status, final results and blobs, expiry of its keys, its stream
 * and its idempotency key; then the oldest finished runs beyond the bound go, with their streams.
 * The results list is rewritten only when ARGV[9] is '': otherwise it already holds the final
 * results, ARGV[9] of them, and a list of any other length refuses the step (-1) before it writes
 * anything, so the caller sends them (docs/adr/0444-a-runs-results-are-stored-once.md).
 * KEYS: run, ids, results, blobs, events, idempotency ('' when none), finished set.
 * ARGV: status, finishedAt, expiresAt, maxRetainedRuns, runId, results JSON, blobs JSON,
 * cancel reason, count of results already stored ('' when sent).
 */
const COMPLETE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if ARGV[9] ~= '' and redis.call('LLEN', KEYS[3]) ~= tonumber(ARGV[9]) then return -1 end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'finishedAt', ARGV[2], 'expiresAt', ARGV[3])
redis.call('HDEL', KEYS[1], 'openAsks', 'resume')
if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], 'cancelReason', ARGV[8]) end
if ARGV[9] == '' then
  redis.call('DEL', KEYS[3])
  local results = cjson.decode(ARGV[6])
  for i = 1, #results, 1000 do redis.call('RPUSH', KEYS[3], unpack(results, i, math.min(i + 999, #results))) end
end
redis.call('DEL', KEYS[4])
if ARGV[7] ~= '[]' then
  local blobs = cjson.decode(ARGV[7])
  for i = 1, #blobs, 1000 do redis.call('RPUSH', KEYS[4], unpack(blobs, i, math.min(i + 999, #blobs))) end
end
for i = 1, 5 do redis.call('PEXPIREAT', KEYS[i], ARGV[3]) end
if KEYS[6] ~= '' then redis.call('PEXPIREAT', KEYS[6], ARGV[3]) end
redis.call('ZADD', KEYS[7], ARGV[3], ARGV[5])
local excess = redis.call('ZCARD', KEYS[7]) - tonumber(ARGV[4])
if excess > 0 then
  for _, old in ipairs(redis.call('ZPOPMIN', KEYS[7], excess)) do
    if _ % 2 == 1 then
      local base = KEYS[1]:sub(1, #KEYS[1] - #ARGV[5]) .. old
      redis.call('DEL', base, base .. ':ids', base .. ':results', base .. ':blobs', KEYS[5]:sub(1, #KEYS[5] - #ARGV[5]) .. old)
    end
  end
end
return 1
`

/**
 * A new run: its hash, its place in the tenant's index (trimmed to the retained runs and a
 * margin), its tool_use ids and any results it starts with.
 * KEYS: run, tenant's runs, ids, results. ARGV: createdAt score, runId, trim rank, then JSON lists
 * of the hash's field/value pairs, the ids and the results (each a JSON string, kept byte for byte).
 */
const CREATE_SCRIPT = `
local fields = cjson.decode(ARGV[4])
-- In slices: unpack is bounded by Lua's stack (a pool may hold many tools, a run many blocks).
for i = 1, #fields, 1000 do redis.call('HSET', KEYS[1], unpack(fields, i, math.min(i + 999, #fields))) end
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, tonumber(ARGV[3]))
local ids = cjson.decode(ARGV[5])
for i = 1, #ids, 1000 do redis.call('RPUSH', KEYS[3], unpack(ids, i, math.min(i + 999, #ids))) end
local results = cjson.decode(ARGV[6])
for i = 1, #results do redis.call('RPUSH', KEYS[4], results[i]) end
return 1
`

/** A run's hash as a record without its lists (the list of runs needs no results). */
function recordOf(hash: Record<string, string>, tenant: string): RunRecord | undefined {
  if (!hash?.fixed) return undefined
  const fixed = JSON.parse(hash.fixed) as Fixed
  if (fixed.tenant !== tenant) return undefined
  const tools = Object.keys(hash)
    .filter((field) => field.startsWith('tool:'))
    .map((field) => field.slice(5))
  return {
    ...fixed,
    status: hash.status as RunStatus,
    toolUseIds: [],
    results: [],
    blobs: [],
    tools,
    ...(hash.finishedAt === undefined ? {} : { finishedAt: hash.finishedAt }),
    ...(hash.expiresAt === undefined ? {} : { expiresAt: Number(hash.expiresAt) }),
    ...(hash.cancelReason === 'shutdown' ? { cancelReason: 'shutdown' as const } : {}),
    ...(hash.openAsks === undefined ? {} : { openAsks: JSON.parse(hash.openAsks) as OpenAsk[] }),
    ...(hash.stalledSince === undefined ? {} : { stalledSince: hash.stalledSince }),
    ...(hash.resume === undefined ? {} : { resume: JSON.parse(hash.resume) as ResumeSpec }),
  }
}

const SET_IF_EXISTS_SCRIPT = `if redis.call('EXISTS', KEYS[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end`

const INDEX_MARGIN = 1000
// Stored answers matter only until a survivor takes the run over, within a few leases.
const ANSWERS_TTL_MS = 24 * 60 * 60 * 1000

type Fixed = Pick<RunRecord, 'runId' | 'tenant' | 'sessionId' | 'mode' | 'createdAt' | 'idempotencyKey'>

export type RedisRunStoreOptions = {
  redis: Redis
  maxRetainedRuns: number
  /** Told of each run created here: its event stream starts empty (redis-event-store.ts). */
  newRuns?: Set<string>
}

/**
 * Runs as a hash (fixed fields, status, finish time) plus lists of tool_use ids, results and
 * blobs, so every write is one narrow command (docs/adr/0110-redis-key-layout.md). Finished runs
 * expire by TTL; there is nothing to sweep.
 */
export function createRedisRunStore({ redis, maxRetainedRuns, newRuns }: RedisRunStoreOptions): RunStore {
  redis.defineCommand('toolexecComplete', { numberOfKeys: 7, lua: COMPLETE_SCRIPT })
  redis.defineCommand('toolexecCreateRun', { numberOfKeys: 4, lua: CREATE_SCRIPT })
  /**
   * Who owns each run this instance created, until it completes: completion needs the tenant and
   * idempotency key, which would otherwise be one more read (docs/adr/0179-one-control-channel-per-instance.md).
   * A run closed elsewhere (a lost run) is read from its hash.
   */
  const owners = new Map<string, Pick<Fixed, 'tenant' | 'idempotencyKey'>>()

  /** Runs of this instance that held a result: their held key goes at completion. */
  const held = new Set<string>()
  /**
   * The results each run created here has in its list, as the objects sent, in the order sent;
   * `undefined` once a write of them failed. A completion with the very same objects does not
   * send them again (docs/adr/0444-a-runs-results-are-stored-once.md).
   */
  const stored = new Map<string, ToolResultBlock[] | undefined>()
  return {
    async create(record) {
      const fixed: Fixed = {
        runId: record.runId,
        tenant: record.tenant,
        sessionId: record.sessionId,
        mode: record.mode,
        createdAt: record.createdAt,
        ...(record.idempotencyKey === undefined ? {} : { idempotencyKey: record.idempotencyKey }),
      }
      const fields: string[] = ['fixed', JSON.stringify(fixed), 'status', record.status]
      for (const tool of record.tools ?? []) fields.push(`tool:${tool}`, '1')
      if (record.resume) fields.push('resume', JSON.stringify(record.resume))
      // One script rather than MULTI, three to five writes and EXEC (docs/adr/0370-redis-writes-as-one-script-each.md).
      await (redis as unknown as CreateCommand).toolexecCreateRun(
        redisKeys.run(record.runId),
        redisKeys.runsOfTenant(record.tenant),
        redisKeys.runToolUseIds(record.runId),
        redisKeys.runResults(record.runId),
        String(Date.parse(record.createdAt)),
        record.runId,
        // The index keeps no more than the retained runs and a margin: older members name runs long gone.
        String(-(maxRetainedRuns + INDEX_MARGIN) - 1),
        JSON.stringify(fields),
        JSON.stringify(record.toolUseIds),
        JSON.stringify(record.results.map((result) => JSON.stringify(result))),
      )
      newRuns?.add(record.runId)
      stored.set(record.runId, [...record.results])
      owners.set(record.runId, {
        tenant: record.tenant,
        ...(record.idempotencyKey === undefined ? {} : { idempotencyKey: record.idempotencyKey }),
      })
    },
    async get(tenant, runId) {
      const replies = await redis
        .multi()
        .hgetall(redisKeys.run(runId))
        .lrange(redisKeys.runToolUseIds(runId), 0, -1)
        .lrange(redisKeys.runResults(runId), 0, -1)
        .lrange(redisKeys.runBlobs(runId), 0, -1)
        .exec()
      const [hash, ids, results, blobs] = (replies ?? []).map(([error, value]) => {
        if (error) throw error
        return value
      }) as [Record<string, string>, string[], string[], string[]]
      const record = recordOf(hash, tenant)
      if (!record) return undefined
      record.toolUseIds = ids
      record.results = results.map((result) => JSON.parse(result) as ToolResultBlock)
      record.blobs = blobs.map((blob) => JSON.parse(blob) as BlobInfo)
      return record
    },
    async appendToolUseId(runId, toolUseId, tool) {
      await Promise.all([
        redis.rpush(redisKeys.runToolUseIds(runId), toolUseId),
        redis.hset(redisKeys.run(runId), `tool:${tool}`, '1'),
      ])
    },
    async storeAnswer(runId, requestId, answer) {
      await redis
        .multi()
        .hsetnx(redisKeys.runAnswers(runId), requestId, JSON.stringify(answer))
        .pexpire(redisKeys.runAnswers(runId), ANSWERS_TTL_MS)
        .exec()
    },
    async storedAnswers(runId) {
      const hash = await redis.hgetall(redisKeys.runAnswers(runId))
      return new Map(Object.entries(hash).map(([id, json]) => [id, JSON.parse(json) as unknown]))
    },
    async setOpenAsks(runId, asks) {
      await redis.hset(redisKeys.run(runId), 'openAsks', JSON.stringify(asks))
    },
    async setStalled(runId, since) {
      // Only on a run that still exists: a mark must not recreate an expired run's hash.
      if (since === undefined) await redis.hdel(redisKeys.run(runId), 'stalledSince')
      else await redis.eval(SET_IF_EXISTS_SCRIPT, 1, redisKeys.run(runId), 'stalledSince', since)
    },
    async list(query) {
      const key = redisKeys.runsOfTenant(query.tenant)
      const records: RunRecord[] = []
      // Pages of ids newest first, from the cursor's time on; ties at the cursor's time are cut by id.
      let max: string = query.cursor ? String(query.cursor.createdAt) : '+inf'
      const min = query.createdAfter === undefined ? '-inf' : `(${query.createdAfter}`
      if (
        query.createdBefore !== undefined &&
        (query.cursor === undefined || query.createdBefore <= query.cursor.createdAt)
      )
        max = `(${query.createdBefore}`
      const batch = Math.max(50, query.limit * 2)
      let offset = 0
      for (;;) {
        const page = await redis.zrevrangebyscore(key, max, min, 'WITHSCORES', 'LIMIT', offset, batch)
        if (page.length === 0) return { records }
        offset += page.length / 2
        const ids: string[] = []
        for (let index = 0; index < page.length; index += 2) ids.push(page[index]!)
        const hashes = await Promise.all(ids.map((id) => redis.hgetall(redisKeys.run(id))))
        const gone: string[] = []
        for (let index = 0; index < ids.length; index++) {
          const record = recordOf(hashes[index]!, query.tenant)
          if (!record) {
            gone.push(ids[index]!)
            continue
          }
          if (query.cursor && !isBefore(record, query.cursor)) continue
          if (!matchesRunQuery(record, query)) continue
          if (records.length === query.limit) {
            if (gone.length > 0) await redis.zrem(key, ...gone)
            return { records, next: cursorOf(records.at(-1)!) }
          }
          records.push(record)
        }
        if (gone.length > 0) {
          await redis.zrem(key, ...gone)
          offset -= gone.length
        }
      }
    },
    async holdResult(runId, result) {
      held.add(runId)
      await redis.hset(redisKeys.runHeld(runId), result.tool_use_id, JSON.stringify(result))
    },
    async heldResults(runId) {
      const hash = await redis.hgetall(redisKeys.runHeld(runId))
      return new Map(Object.entries(hash).map(([id, json]) => [id, JSON.parse(json) as ToolResultBlock]))
    },
    async appendResults(runId, results) {
      // One RPUSH for the results of one batch of events (docs/adr/0174-run-events-written-in-batches.md).
      if (results.length === 0) return
      // Noted when sent: the connection keeps the order of the pushes, whichever answers first.
      stored.get(runId)?.push(...results)
      try {
        await redis.rpush(redisKeys.runResults(runId), ...results.map((result) => JSON.stringify(result)))
      } catch (error) {
        if (stored.has(runId)) stored.set(runId, undefined)
        throw error
      }
    },
    async complete(runId, completion) {
      let owner = owners.get(runId)
      owners.delete(runId)
      newRuns?.delete(runId)
      if (!owner) {
        const fixed = await redis.hget(redisKeys.run(runId), 'fixed')
        if (fixed === null) return
        owner = JSON.parse(fixed) as Fixed
      }
      const { tenant, idempotencyKey } = owner
      const inList = stored.get(runId)
      stored.delete(runId)
      const storedOnce =
        inList !== undefined &&
        inList.length === completion.results.length &&
        inList.every((result, index) => result === completion.results[index])
      const finish = (sendResults: boolean) =>
        (redis as unknown as CompleteCommand).toolexecComplete(
          redisKeys.run(runId),
          redisKeys.runToolUseIds(runId),
          redisKeys.runResults(runId),
          redisKeys.runBlobs(runId),
          redisKeys.events(runId),
          idempotencyKey === undefined ? '' : redisKeys.idempotency(tenant, idempotencyKey),
          redisKeys.finishedRuns,
          completion.status,
          completion.finishedAt,
          String(completion.expiresAt),
          String(maxRetainedRuns),
          runId,
          // Lists of JSON strings: cjson never re-encodes a result, so its bytes stay as they were.
          sendResults ? JSON.stringify(completion.results.map((result) => JSON.stringify(result))) : '[]',
          JSON.stringify(completion.blobs.map((blob) => JSON.stringify(blob))),
          completion.cancelReason ?? '',
          sendResults ? '' : String(completion.results.length),
        )
      // The list holds something else than this instance sent (a push answered twice after a
      // reconnect, or lost): the step refused before writing, and the results go along now.
      if ((await finish(!storedOnce)) === -1) await finish(true)
      // Only runs that held a result here, or closed as lost by a survivor, have the key.
      if (held.delete(runId) || completion.status === 'lost') await redis.del(redisKeys.runHeld(runId))
    },
    async sweep() {
      // Redis expires finished runs itself (PEXPIREAT in COMPLETE_SCRIPT).
      return []
    },
  }
}

type CreateCommand = { toolexecCreateRun(...args: string[]): Promise<number> }

type CompleteCommand = { toolexecComplete(...args: string[]): Promise<number> }
