// Pins the adaptive start limit (docs/adr/0506-the-start-limit-adapts-to-the-event-loop.md): it
// grows by one while starts wait and the loop is on time, halves when the loop is late, stays
// between its floor and ceiling, reads the loop only while starts are under way or waiting, and a
// pinned limit never moves. The loop's delay is injected reading by reading: no wall clock.
import { describe, expect, it } from 'vitest'
import { deferred } from '../../../src/async/deferred.js'
import {
  BUSY_DELAY_MS,
  CALM_DELAY_MS,
  createStartPace,
  type DelayReader,
  nextStartLimit,
} from '../../../src/tools/bash/start-pace.js'
import { createStartPacer } from '../../../src/tools/bash/start-pacer.js'

const bounds = { floor: 2, ceiling: 16 }
const turn = () => new Promise((resolve) => setImmediate(resolve))

/** A delay reader the test answers: `answer(ms)` fires the pending reading with that delay. */
function handReader() {
  const pending: ((delayMs: number) => void)[] = []
  const read: DelayReader = (_period, onReading) => void pending.push(onReading)
  const answer = (delayMs: number) => {
    const next = pending.shift()
    if (!next) throw new Error('no reading armed')
    next(delayMs)
  }
  return {
    read,
    answer,
    get armed() {
      return pending.length
    },
  }
}

/** `count` starts that each last until the test ends them all. */
function holdStarts(pacer: ReturnType<typeof createStartPacer>, count: number) {
  const end = deferred<void>()
  const began: number[] = []
  const results = Array.from({ length: count }, (_, index) =>
    pacer.run(
      async () => {
        began.push(index)
        return index
      },
      { holdUntil: () => end.promise },
    ),
  )
  return { began, finish: () => end.resolve(), results }
}

describe('nextStartLimit', () => {
  it('grows by one when starts waited and the loop was on time, never above the ceiling', () => {
    expect(nextStartLimit(2, { delayMs: CALM_DELAY_MS, waited: true }, bounds)).toBe(3)
    expect(nextStartLimit(16, { delayMs: 0, waited: true }, bounds)).toBe(16)
  })

  it('stays when nothing waited, or when the loop was neither on time nor late', () => {
    expect(nextStartLimit(5, { delayMs: 0, waited: false }, bounds)).toBe(5)
    expect(nextStartLimit(5, { delayMs: CALM_DELAY_MS + 1, waited: true }, bounds)).toBe(5)
  })

  it('halves when the loop was late, never below the floor', () => {
    expect(nextStartLimit(16, { delayMs: BUSY_DELAY_MS, waited: true }, bounds)).toBe(8)
    expect(nextStartLimit(5, { delayMs: 900, waited: false }, bounds)).toBe(2)
    expect(nextStartLimit(3, { delayMs: BUSY_DELAY_MS, waited: false }, bounds)).toBe(2)
  })
})

describe('createStartPace', () => {
  it('starts at the floor, gives waiting starts their turn as it grows, and halves under delay', async () => {
    const pacer = createStartPacer(1)
    const reader = handReader()
    const pace = createStartPace(pacer, reader.read)
    pace.adapt(2, 4)
    expect(pace.state()).toEqual({ pacing: 'adaptive', floor: 2, ceiling: 4 })
    pace.starting()
    const { began, finish, results } = holdStarts(pacer, 6)
    await turn()
    expect(began).toEqual([0, 1])
    reader.answer(0)
    await turn()
    expect([pacer.limit, began]).toEqual([3, [0, 1, 2]])
    reader.answer(CALM_DELAY_MS)
    await turn()
    expect([pacer.limit, began]).toEqual([4, [0, 1, 2, 3]])
    // At the ceiling: more calm readings change nothing.
    reader.answer(0)
    expect(pacer.limit).toBe(4)
    // Late: halved; the four under way finish, none is dropped, and the next two go in order.
    reader.answer(BUSY_DELAY_MS)
    await turn()
    expect([pacer.limit, pacer.starting, pacer.queued]).toEqual([2, 4, 2])
    finish()
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4, 5])
    expect(began).toEqual([0, 1, 2, 3, 4, 5])
  })

  it('reads the loop only while starts are under way or waiting', async () => {
    const pacer = createStartPacer(1)
    const reader = handReader()
    const pace = createStartPace(pacer, reader.read)
    pace.adapt(1, 8)
    pace.starting()
    pace.starting()
    expect(reader.armed).toBe(1)
    const { finish, results } = holdStarts(pacer, 2)
    reader.answer(0)
    expect(reader.armed).toBe(1)
    finish()
    await Promise.all(results)
    await turn()
    reader.answer(0)
    // Idle: no reading armed until the next start is asked for.
    expect(reader.armed).toBe(0)
    pace.starting()
    expect(reader.armed).toBe(1)
  })

  it('does not grow when no start waited since the last reading', async () => {
    const pacer = createStartPacer(1)
    const reader = handReader()
    const pace = createStartPace(pacer, reader.read)
    pace.adapt(2, 8)
    pace.starting()
    const { finish, results } = holdStarts(pacer, 2)
    reader.answer(0)
    expect(pacer.limit).toBe(2)
    finish()
    await Promise.all(results)
  })

  it('keeps a pinned limit whatever the loop does', async () => {
    const pacer = createStartPacer(1)
    const reader = handReader()
    const pace = createStartPace(pacer, reader.read)
    pace.pin(3)
    pace.starting()
    expect(reader.armed).toBe(0)
    expect(pace.state()).toEqual({ pacing: 'fixed', floor: 3, ceiling: 3 })
    pace.adapt(2, 8)
    pace.pin(5)
    expect([pacer.limit, pace.state().pacing]).toEqual([5, 'fixed'])
  })

  it('refuses bounds that cannot hold', () => {
    const pace = createStartPace(createStartPacer(1), handReader().read)
    expect(() => pace.adapt(0, 4)).toThrow('1 ≤ floor ≤ ceiling, got 0…4')
    expect(() => pace.adapt(4, 2)).toThrow('got 4…2')
  })
})
