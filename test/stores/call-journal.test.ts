// Pins the Managed Agents call journal on both backends (memory and a real Redis), same cases: of
// two claims one wins; a call only queued by a lost owner is claimed again, a started or answered
// one never is; an answered call never goes back to started (docs/adr/0402).
import { Redis } from 'ioredis'
import { afterAll, describe, expect, it } from 'vitest'
import type { CallJournal } from '../../src/stores/call-journal.js'
import { createMemoryCallJournal } from '../../src/stores/memory/memory-call-journal.js'
import { createRedisCallJournal } from '../../src/stores/redis/redis-call-journal.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'

let server: RedisServer | undefined
const clients: Redis[] = []
let unique = 0
const session = () => `sesn_${++unique}`

afterAll(async () => {
  for (const client of clients) client.disconnect()
  await server?.stop()
})

async function redisJournal(): Promise<CallJournal> {
  server ??= await startRedisServer()
  const client = new Redis(server.url)
  clients.push(client)
  return createRedisCallJournal(client)
}

const implementations: [string, () => Promise<CallJournal>, string | undefined][] = [
  ['memory', async () => createMemoryCallJournal(), undefined],
  ['redis', redisJournal, redisSkipReason],
]

describe.each(implementations)('%s call journal', (_name, open, skipReason) => {
  it.skipIf(skipReason !== undefined)('lets only the last claimant of a queued call start it', async () => {
    const journal = await open()
    const id = session()
    await Promise.all([journal.claim(id, 'toolu_1', 'a'), journal.claim(id, 'toolu_1', 'b')])
    const starts = await Promise.all([journal.started(id, 'toolu_1', 'a'), journal.started(id, 'toolu_1', 'b')])
    expect(starts).toEqual([false, true])
  })

  it.skipIf(skipReason !== undefined)(
    'hands a call only queued by another owner over; its own duplicate is not',
    async () => {
      const journal = await open()
      const id = session()
      expect(await journal.claim(id, 'toolu_1', 'a')).toBeNull()
      expect(await journal.claim(id, 'toolu_1', 'a')).toEqual({ state: 'queued', owner: 'a' })
      expect(await journal.claim(id, 'toolu_1', 'b')).toBeNull()
    },
  )

  it.skipIf(skipReason !== undefined)('never hands over a started or answered call', async () => {
    const journal = await open()
    const id = session()
    await journal.claim(id, 'toolu_1', 'a')
    await journal.started(id, 'toolu_1', 'a')
    expect(await journal.claim(id, 'toolu_1', 'b')).toEqual({ state: 'started', owner: 'a' })
    await journal.answered(id, 'toolu_1')
    await journal.started(id, 'toolu_1', 'a')
    expect(await journal.claim(id, 'toolu_1', 'b')).toEqual({ state: 'answered' })
  })
})
