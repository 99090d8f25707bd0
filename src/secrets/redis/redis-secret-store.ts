import type { Redis } from 'ioredis'
import type { SealedSecret, SecretStore } from '../secret-store.js'

/**
 * The deployment's secrets in one Redis hash, field = name, value = the sealed record's JSON
 * (docs/adr/0331-secrets-belong-to-the-deployment.md). Beside the keys of
 * src/stores/redis/redis-keys.ts, with the same prefix; it never expires.
 */
const REDIS_SECRETS_KEY = 'toolexec:secrets'
/** Pub/sub: the name of each secret written or deleted, so every instance's failed servers try again. */
const REDIS_SECRETS_CHANNEL = 'toolexec:secrets:changed'

/** Sealed secrets on Redis, shared by every instance; `redis` is this store's own connection. */
export function createRedisSecretStore(redis: Redis): SecretStore {
  const listeners = new Set<(name: string) => void>()
  let subscriber: Redis | undefined

  function subscribe(): void {
    subscriber = redis.duplicate()
    subscriber.on('message', (_channel: string, name: string) => {
      for (const listener of [...listeners]) listener(name)
    })
    void subscriber.subscribe(REDIS_SECRETS_CHANNEL).catch(() => {})
  }

  return {
    async get(name) {
      const text = await redis.hget(REDIS_SECRETS_KEY, name)
      return text === null ? undefined : (JSON.parse(text) as SealedSecret)
    },
    async put(record) {
      await redis
        .multi()
        .hset(REDIS_SECRETS_KEY, record.name, JSON.stringify(record))
        .publish(REDIS_SECRETS_CHANNEL, record.name)
        .exec()
    },
    async delete(name) {
      const replies = await redis.multi().hdel(REDIS_SECRETS_KEY, name).publish(REDIS_SECRETS_CHANNEL, name).exec()
      return Number(replies?.[0]?.[1] ?? 0) > 0
    },
    async list() {
      const all = await redis.hgetall(REDIS_SECRETS_KEY)
      return Object.values(all)
        .map((text) => JSON.parse(text) as SealedSecret)
        .sort((a, b) => a.name.localeCompare(b.name))
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
