import type { Redis } from 'ioredis'
import type { IdempotencyEntry, IdempotencyStore } from '../idempotency-store.js'
import { redisKeys } from './redis-keys.js'

/** Deletes the key only while it still names this run. */
const RELEASE_SCRIPT = `
local value = redis.call('GET', KEYS[1])
if value and cjson.decode(value).runId == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`

export type RedisIdempotencyStoreOptions = {
  redis: Redis
  /** Bound on a key whose run never got a record (its instance died in between). */
  claimTtlMs: number
}

/**
 * Keys claimed with `SET NX GET`: one command, so of N concurrent claims on N instances exactly
 * one wins. The run's completion sets the key's expiry to the run's (redis-run-store.ts).
 */
export function createRedisIdempotencyStore({ redis, claimTtlMs }: RedisIdempotencyStoreOptions): IdempotencyStore {
  redis.defineCommand('toolexecReleaseKey', { numberOfKeys: 1, lua: RELEASE_SCRIPT })

  return {
    async claim(tenant, key, entry) {
      const previous = await redis.set(
        redisKeys.idempotency(tenant, key),
        JSON.stringify(entry),
        'PX',
        claimTtlMs,
        'NX',
        'GET',
      )
      return previous === null ? null : (JSON.parse(previous) as IdempotencyEntry)
    },
    async release(tenant, key, runId) {
      await (redis as unknown as { toolexecReleaseKey(...args: string[]): Promise<number> }).toolexecReleaseKey(
        redisKeys.idempotency(tenant, key),
        runId,
      )
    },
  }
}
