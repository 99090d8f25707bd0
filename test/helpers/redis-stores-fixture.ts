// A real redis-server with the service's Redis stores and a plain client beside them, for the
// tests of one store's Redis layout: started before the file's tests, stopped after them.
import { Redis } from 'ioredis'
import { afterAll, beforeAll } from 'vitest'
import { createRedisStores, type RedisStores } from '../../src/stores/redis/redis-stores.js'
import { type RedisServer, startRedisServer } from './redis-server.js'

export type RedisStoresFixture = { stores: RedisStores; client: Redis }

/** Call inside a `describe`; read the fields in tests (they are set once `beforeAll` ran). */
export function useRedisStores(): RedisStoresFixture {
  const fixture = {} as RedisStoresFixture
  let server: RedisServer | undefined
  beforeAll(async () => {
    server = await startRedisServer()
    fixture.stores = createRedisStores({
      url: server.url,
      runTtlMs: 60_000,
      leaseMs: 1000,
      maxRetainedRuns: 10,
      sessionIdleTtlMs: 60_000,
    })
    fixture.client = new Redis(server.url)
  })
  afterAll(async () => {
    fixture.client?.disconnect()
    await fixture.stores?.close()
    await server?.stop()
  })
  return fixture
}
