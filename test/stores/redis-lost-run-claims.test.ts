// Pins which runs an instance claims as lost on a real redis-server: a run listed as running
// without a lease, once, by one survivor; not a run whose lease is live, and not one released
// while the listing was walked (docs/adr/0513-a-released-run-is-not-claimed-as-lost.md).
import { setTimeout as delay } from 'node:timers/promises'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRedisRunCoordination } from '../../src/stores/redis/redis-run-coordination.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'

const LEASE_MS = 60

describe.skipIf(redisSkipReason !== undefined)('claiming lost runs on Redis', () => {
  let server: RedisServer
  const connections: Redis[] = []
  const connect = async () => {
    const redis = new Redis(server.url)
    connections.push(redis)
    await new Promise((resolve) => redis.once('ready', resolve))
    return redis
  }
  const survivor = async () => {
    const [redis, subscriber] = [await connect(), await connect()]
    const coordination = createRedisRunCoordination({ redis, subscriber, instanceId: 'survivor', leaseMs: LEASE_MS })
    // Leases are judged only a lease after connecting.
    await delay(LEASE_MS * 2)
    return { redis, coordination }
  }

  beforeAll(async () => {
    server = await startRedisServer()
  })
  afterAll(async () => {
    for (const connection of connections) connection.disconnect()
    await server?.stop()
  })

  it('claims a listed run without a lease once, and leaves one with a live lease', async () => {
    const { redis, coordination } = await survivor()
    await redis.hset('toolexec:runs:running', 'lost-1', 'acme', 'alive-1', 'acme')
    await redis.set('toolexec:lease:alive-1', 'other', 'PX', 60_000)
    expect(await coordination.claimLostRuns()).toEqual([{ runId: 'lost-1', tenant: 'acme' }])
    expect(await coordination.claimLostRuns()).toEqual([])
    await coordination.close()
  })

  it('does not claim a run released after the listing was read', async () => {
    const { redis, coordination } = await survivor()
    await redis.hset('toolexec:runs:running', 'still-lost', 'acme')
    // The listing as it was read just before `released` ended: lease and entry go together.
    const read = redis.hgetall.bind(redis)
    redis.hgetall = (async (key: string) => ({ ...(await read(key)), released: 'acme' })) as typeof redis.hgetall
    expect(await coordination.claimLostRuns()).toEqual([{ runId: 'still-lost', tenant: 'acme' }])
    expect(await redis.exists('toolexec:recovering:released')).toBe(0)
    await coordination.close()
  })
})
