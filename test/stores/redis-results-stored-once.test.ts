// Pins how a run's results reach Redis once (docs/adr/0444-a-runs-results-are-stored-once.md): a
// completion whose results are the very ones this instance pushed sends none of them again, and a
// list that holds anything else (a push applied twice after a reconnect) is rewritten whole.
import type { Redis } from 'ioredis'
import { describe, expect, it } from 'vitest'
import type { ToolResultBlock } from '../../src/messages/content-blocks.js'
import { redisKeys } from '../../src/stores/redis/redis-keys.js'
import type { RunRecord } from '../../src/stores/run-store.js'
import { redisSkipReason } from '../helpers/redis-server.js'
import { useRedisStores } from '../helpers/redis-stores-fixture.js'

const run = (runId: string): RunRecord => ({
  runId,
  tenant: 'acme',
  sessionId: 'ses_1',
  mode: 'wait',
  createdAt: '2026-01-01T00:00:00.000Z',
  status: 'running',
  toolUseIds: ['a', 'b'],
  results: [],
  blobs: [],
})

const results: ToolResultBlock[] = [
  { type: 'tool_result', tool_use_id: 'a', content: 'one' },
  { type: 'tool_result', tool_use_id: 'b', content: [{ type: 'text', text: 'two' }], is_error: true },
]

const completion = (finished: ToolResultBlock[]) => ({
  status: 'completed' as const,
  results: finished,
  blobs: [],
  finishedAt: '2026-01-01T00:00:01.000Z',
  expiresAt: Date.now() + 60_000,
})

/** RPUSH commands Redis has run so far, inside scripts included. */
async function pushes(client: Redis): Promise<number> {
  const stats = await client.info('commandstats')
  return Number(/cmdstat_rpush:calls=(\d+)/.exec(stats)?.[1] ?? 0)
}

describe.skipIf(redisSkipReason !== undefined)('a run’s results on Redis', () => {
  const fixture = useRedisStores()

  it('are not sent again at completion when the list holds the very results pushed', async () => {
    await fixture.stores.stores.runs.create(run('once'))
    await fixture.stores.stores.runs.appendResults('once', [results[0]!])
    await fixture.stores.stores.runs.appendResults('once', [results[1]!])
    const before = await pushes(fixture.client)
    await fixture.stores.stores.runs.complete('once', completion([...results]))
    expect(await pushes(fixture.client)).toBe(before)
    const record = await fixture.stores.stores.runs.get('acme', 'once')
    expect(record).toMatchObject({ status: 'completed', results })
  })

  it('are rewritten whole when the list holds more than was pushed', async () => {
    await fixture.stores.stores.runs.create(run('twice'))
    await fixture.stores.stores.runs.appendResults('twice', results)
    // A push answered twice: ioredis resends an unanswered command after a reconnect.
    await fixture.client.rpush(redisKeys.runResults('twice'), JSON.stringify(results[1]))
    await fixture.stores.stores.runs.complete('twice', completion(results))
    expect((await fixture.stores.stores.runs.get('acme', 'twice'))?.results).toEqual(results)
  })

  it('are sent when the completion brings results other than those pushed', async () => {
    await fixture.stores.stores.runs.create(run('other'))
    await fixture.stores.stores.runs.appendResults('other', [results[0]!])
    const final = [{ ...results[0]! }, results[1]!]
    await fixture.stores.stores.runs.complete('other', completion(final))
    expect((await fixture.stores.stores.runs.get('acme', 'other'))?.results).toEqual(results)
  })
})
