import type { IdempotencyEntry, IdempotencyStore } from '../idempotency-store.js'

const keyOf = (tenant: string, key: string) => `${tenant}\u0000${key}`

/**
 * Keys in a Map. The check-and-set happens synchronously inside `claim`, before its promise
 * settles, so two requests arriving in the same tick cannot both win.
 */
export function createMemoryIdempotencyStore(): IdempotencyStore {
  const entries = new Map<string, IdempotencyEntry>()

  return {
    claim(tenant, key, entry) {
      const existing = entries.get(keyOf(tenant, key))
      if (existing) return Promise.resolve(existing)
      entries.set(keyOf(tenant, key), entry)
      return Promise.resolve(null)
    },
    async release(tenant, key, runId) {
      if (entries.get(keyOf(tenant, key))?.runId === runId) entries.delete(keyOf(tenant, key))
    },
  }
}
