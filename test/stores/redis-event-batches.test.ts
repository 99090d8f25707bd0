import { describe, expect, it, vi } from 'vitest'
import { redisKeys } from '../../src/stores/redis/redis-keys.js'
import { redisSkipReason } from '../helpers/redis-server.js'
import { useRedisStores } from '../helpers/redis-stores-fixture.js'

type AppendCommand = { toolexecAppend(...args: string[]): Promise<number> }

describe.skipIf(redisSkipReason !== undefined)('a run’s event stream on Redis', () => {
  const fixture = useRedisStores()

  const started = (id: string) => ({ type: 'tool.started' as const, tool_use_id: id })
  const ids = (events: readonly { seq: number; tool_use_id?: string }[]) =>
    events.map((event) => [event.seq, event.tool_use_id])

  it('stores a batch as one entry and replays from a seq inside it', async () => {
    const { events } = fixture.stores.stores
    await events.appendBatch('batch', [started('a'), started('b'), started('c')])
    await events.append('batch', started('d'))
    expect(await fixture.client.xlen(redisKeys.events('batch'))).toBe(2)
    expect(ids(await events.read('batch', 0))).toEqual([
      [1, 'a'],
      [2, 'b'],
      [3, 'c'],
      [4, 'd'],
    ])
    expect(ids(await events.read('batch', 2))).toEqual([
      [3, 'c'],
      [4, 'd'],
    ])
    const seen: number[] = []
    await events.subscribe('batch', 1, (event) => seen.push(event.seq))
    expect(seen).toEqual([2, 3, 4])
  })

  it('reads what was appended while its subscriber connection was cut off', async () => {
    const { events } = fixture.stores.stores
    await events.append('gap', started('a'))
    const seen: (string | undefined)[] = []
    await events.subscribe('gap', 0, (event) => seen.push('tool_use_id' in event ? event.tool_use_id : undefined))
    expect(seen).toEqual(['a'])
    // No nudge can reach this instance while it is cut off: the tail reads them once back.
    await fixture.client.client('KILL', 'TYPE', 'pubsub')
    await events.appendBatch('gap', [started('b'), started('c')])
    await vi.waitFor(() => expect(seen).toEqual(['a', 'b', 'c']), { timeout: 10_000 })
    // And the channel is subscribed again: a later event arrives by its nudge.
    await events.append('gap', started('d'))
    await vi.waitFor(() => expect(seen).toEqual(['a', 'b', 'c', 'd']), { timeout: 10_000 })
  })

  it('reads entries of one event written before, and continues their seqs', async () => {
    const key = redisKeys.events('older')
    await fixture.client.xadd(key, '0-1', 'b', JSON.stringify(started('a')), 't', '2026-01-01T00:00:00.000Z')
    await fixture.client.xadd(key, '0-2', 'b', JSON.stringify(started('b')), 't', '2026-01-01T00:00:01.000Z')
    const next = await fixture.stores.stores.events.append('older', started('c'))
    expect(next.seq).toBe(3)
    const read = await fixture.stores.stores.events.read('older', 1)
    expect(ids(read)).toEqual([
      [2, 'b'],
      [3, 'c'],
    ])
    expect(read[0]!.ts).toBe('2026-01-01T00:00:01.000Z')
  })

  it('lands a resent batch once and refuses another batch at the same seqs', async () => {
    const append = (fixture.stores.redis as unknown as AppendCommand).toolexecAppend.bind(fixture.stores.redis)
    const key = redisKeys.events('resent')
    const channel = redisKeys.eventsChannel('resent')
    const batch = JSON.stringify([
      [1, '2026-01-01T00:00:00.000Z', started('a')],
      [2, '2026-01-01T00:00:00.000Z', started('b')],
    ])
    expect(await append(key, channel, '100', '', '1', '2', batch)).toBe(2)
    expect(await append(key, channel, '100', '', '1', '2', batch)).toBe(0)
    await expect(append(key, channel, '100', '', '1', '2', batch.replace('"b"', '"x"'))).rejects.toThrow('SEQ_TAKEN')
    await expect(append(key, channel, '100', '', '4', '4', batch)).rejects.toThrow('SEQ_TAKEN')
    expect(ids(await fixture.stores.stores.events.read('resent', 0))).toEqual([
      [1, 'a'],
      [2, 'b'],
    ])
  })
})
