import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { SealedSecret, SecretStore } from '../../secrets/secret-store.js'
import { redisKeys } from './redis-keys.js'
import { subscribeOnReady } from './subscribe-on-ready.js'

/** The first error of a MULTI's replies, thrown: ioredis resolves `exec` even when a command failed. */
function throwFailed(replies: [error: Error | null, result: unknown][] | null): [Error | null, unknown][] {
  const failed = replies?.find(([error]) => error)
  if (failed) throw failed[0]
  return replies ?? []
}

/** Deletes the lock only while it is still the caller's: a lock that expired and was taken again stays. */
const RELEASE_LOCK = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`

/**
 * The deployment's secrets in one Redis hash, field = name, value = the sealed record's JSON, never
 * expiring (docs/adr/0331-secrets-belong-to-the-deployment.md); each change is published so every
 * instance hears of it. `redis` is this store's own connection.
 */
export function createRedisSecretStore(redis: Redis): SecretStore {
  const listeners = new Set<(name: string) => void>()
  let subscriber: Redis | undefined

  const notify = (name: string) => {
    for (const listener of [...listeners]) listener(name)
  }

  function subscribe(): void {
    const connection = redis.duplicate()
    subscriber = connection
    connection.on('message', (_channel: string, name: string) => notify(name))
    // Once subscribed, every name stored now: a write published before the subscription took
    // effect is read back. Listeners act on a name idempotently (a failed server tries again, a
    // token is read again), so hearing one twice is harmless (docs/adr/0581).
    subscribeOnReady(
      connection,
      () => [redisKeys.secretsChannel],
      async () => {
        for (const name of await redis.hkeys(redisKeys.secrets)) notify(name)
      },
    )
    // A connection made with `lazyConnect` would wait for a first command that never comes.
    if (connection.status === 'wait') connection.connect().catch(() => {})
  }

  return {
    async get(name) {
      const text = await redis.hget(redisKeys.secrets, name)
      return text === null ? undefined : (JSON.parse(text) as SealedSecret)
    },
    async put(record) {
      throwFailed(
        await redis
          .multi()
          .hset(redisKeys.secrets, record.name, JSON.stringify(record))
          .publish(redisKeys.secretsChannel, record.name)
          .exec(),
      )
    },
    async delete(name) {
      const replies = throwFailed(
        await redis.multi().hdel(redisKeys.secrets, name).publish(redisKeys.secretsChannel, name).exec(),
      )
      return Number(replies[0]?.[1] ?? 0) > 0
    },
    async list() {
      const all = await redis.hgetall(redisKeys.secrets)
      return Object.values(all)
        .map((text) => JSON.parse(text) as SealedSecret)
        .sort((a, b) => a.name.localeCompare(b.name))
    },
    async tryLock(name, ttlMs) {
      const key = `${redisKeys.secrets}:lock:${name}`
      const token = randomUUID()
      if ((await redis.set(key, token, 'PX', ttlMs, 'NX')) !== 'OK') return undefined
      return async () => {
        await redis.eval(RELEASE_LOCK, 1, key, token).catch(() => {})
      }
    },
    onChange(listener) {
      listeners.add(listener)
      if (subscriber === undefined) subscribe()
      return () => listeners.delete(listener)
    },
    async close() {
      listeners.clear()
      subscriber?.disconnect()
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
