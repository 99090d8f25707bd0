// Pins the pacing of process starts (docs/adr/0301-process-starts-are-paced.md): at most `limit`
// under way, the rest started in the order asked, none dropped; a start cancelled while it waits
// leaves the queue unstarted; a start holds its turn until what `holdUntil` returns settles.
import { describe, expect, it } from 'vitest'
import { deferred } from '../../../src/async/deferred.js'
import { createStartPacer, StartCancelledError } from '../../../src/tools/bash/start-pacer.js'

/** A start that takes as long as the test says: `finish(i)` ends the i-th. */
function slowStarts() {
  const began: number[] = []
  const ends = new Map<number, ReturnType<typeof deferred<number>>>()
  const start = (index: number) => () => {
    began.push(index)
    const end = deferred<number>()
    ends.set(index, end)
    return end.promise
  }
  const finish = (index: number) => ends.get(index)?.resolve(index)
  return { began, start, finish }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))

describe('createStartPacer', () => {
  it('keeps at most `limit` starts under way and starts the others in order, all finishing', async () => {
    const pacer = createStartPacer(2)
    const { began, start, finish } = slowStarts()
    const results = [0, 1, 2, 3, 4].map((index) => pacer.run(start(index)))
    await turn()
    expect(began).toEqual([0, 1])
    expect([pacer.starting, pacer.queued]).toEqual([2, 3])
    finish(1)
    await turn()
    expect(began).toEqual([0, 1, 2])
    for (const index of [0, 2, 3, 4]) {
      finish(index)
      await turn()
      expect(pacer.starting).toBeLessThanOrEqual(2)
    }
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4])
    expect(began).toEqual([0, 1, 2, 3, 4])
    expect([pacer.starting, pacer.queued]).toEqual([0, 0])
  })

  it('takes a start cancelled while it waits out of the queue, unstarted, and the next one goes', async () => {
    const pacer = createStartPacer(1)
    const { began, start, finish } = slowStarts()
    const cancel = new AbortController()
    const first = pacer.run(start(0))
    const cancelled = pacer.run(start(1), { signal: cancel.signal })
    const third = pacer.run(start(2))
    await turn()
    cancel.abort()
    await expect(cancelled).rejects.toThrow(StartCancelledError)
    await expect(cancelled).rejects.toThrow('Command was aborted before it started.')
    expect(pacer.queued).toBe(1)
    finish(0)
    await turn()
    finish(2)
    expect([await first, await third]).toEqual([0, 2])
    expect(began).toEqual([0, 2])
  })

  it('refuses a start whose signal is already aborted, and frees the turn of a start that failed', async () => {
    const pacer = createStartPacer(1)
    await expect(pacer.run(async () => 1, { signal: AbortSignal.abort() })).rejects.toThrow(StartCancelledError)
    await expect(pacer.run(() => Promise.reject(new Error('spawn bwrap ENOENT')))).rejects.toThrow('ENOENT')
    expect(await pacer.run(async () => 'next')).toBe('next')
  })

  it('holds the turn until what holdUntil returns settles', async () => {
    const pacer = createStartPacer(1)
    const setUp = deferred<void>()
    const began: string[] = []
    const first = pacer.run(async () => began.push('first'), { holdUntil: () => setUp.promise })
    const second = pacer.run(async () => began.push('second'))
    await first
    await turn()
    expect(began).toEqual(['first'])
    setUp.resolve()
    await second
    expect(began).toEqual(['first', 'second'])
  })

  it('names the option when the limit is not a positive integer', () => {
    expect(() => createStartPacer(0)).toThrow('limit must be a positive integer, got 0')
  })
})
