import type { Redis } from 'ioredis'
import type { ToolResultBlock } from '../../messages/content-blocks.js'
import type { BlobInfo } from '../../results/blob-store.js'
import { cursorOf, isBefore, matchesRunQuery } from '../run-list-filter.js'
import type { RunRecord, RunStore } from '../run-store.js'
import { redisKeys } from './redis-keys.js'
import { type FixedRunFields, recordOf } from './redis-run-record.js'
import {
  COMPLETE_SCRIPT,
  type CompleteCommand,
  CREATE_SCRIPT,
  type CreateCommand,
  SET_IF_EXISTS_SCRIPT,
} from './redis-run-scripts.js'

const INDEX_MARGIN = 1000
// Stored answers matter only until a survivor takes the run over, within a few leases.
const ANSWERS_TTL_MS = 24 * 60 * 60 * 1000

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
  const owners = new Map<string, Pick<FixedRunFields, 'tenant' | 'idempotencyKey'>>()

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
      const fixed: FixedRunFields = {
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
      // One script rather than MULTI, three to five writes and EXEC (docs/adr/0370-redis-writes-as-one-script-each.md);
      // its values as plain arguments, serialised once (docs/adr/0536-a-new-run-is-sent-as-plain-arguments.md).
      await (redis as unknown as CreateCommand).toolexecCreateRun(
        redisKeys.run(record.runId),
        redisKeys.runsOfTenant(record.tenant),
        redisKeys.runToolUseIds(record.runId),
        redisKeys.runResults(record.runId),
        String(Date.parse(record.createdAt)),
        record.runId,
        // The index keeps no more than the retained runs and a margin: older members name runs long gone.
        String(-(maxRetainedRuns + INDEX_MARGIN) - 1),
        String(record.toolUseIds.length),
        String(record.results.length),
        // Lists go as they are: ioredis flattens them into arguments, no spread on the call stack.
        record.toolUseIds,
        record.results.map((result) => JSON.stringify(result)),
        fields,
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
        owner = JSON.parse(fixed) as FixedRunFields
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
