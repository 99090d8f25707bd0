import type { Redis } from 'ioredis'
import type { SealedSecret, SecretStore } from '../secret-store.js'

/**
 * The deployment's secrets in one Redis hash, field = name, value = the sealed record's JSON
 * (docs/adr/0331-secrets-belong-to-the-deployment.md). Beside the keys of
 * src/stores/redis/redis-keys.ts, with the same prefix; it never expires.
 */
const REDIS_SECRETS_KEY = 'toolexec:secrets'

/** Sealed secrets on Redis, shared by every instance; `redis` is this store's own connection. */
export function createRedisSecretStore(redis: Redis): SecretStore {
  return {
    async get(name) {
      const text = await redis.hget(REDIS_SECRETS_KEY, name)
      return text === null ? undefined : (JSON.parse(text) as SealedSecret)
    },
    async put(record) {
      await redis.hset(REDIS_SECRETS_KEY, record.name, JSON.stringify(record))
    },
    delete: async (name) => (await redis.hdel(REDIS_SECRETS_KEY, name)) > 0,
    async list() {
      const all = await redis.hgetall(REDIS_SECRETS_KEY)
      return Object.values(all)
        .map((text) => JSON.parse(text) as SealedSecret)
        .sort((a, b) => a.name.localeCompare(b.name))
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}
