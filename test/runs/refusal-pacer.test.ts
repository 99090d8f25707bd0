// Pins when a refusal for capacity leaves (docs/adr/0182, 0360, 0361), on a clock and turns the
// test drives: no wall-clock time is measured.
import { describe, expect, it } from 'vitest'
import { createRefusalPacer } from '../../src/runs/capacity/refusal-pacer.js'

/** A pacer on a hand-moved clock: timers and later turns run only when the test says. */
function harness(perTurn = 16) {
  let clock = 0
  const timers: Array<{ at: number; task: () => void }> = []
  let turns: Array<() => void> = []
  const pacer = createRefusalPacer({
    paceMs: 50,
    retryAfterMs: 1000,
    perTurn,
    now: () => clock,
    after: (ms, task) => {
      timers.push({ at: clock + ms, task })
    },
    nextTurn: (task) => {
      turns.push(task)
    },
  })
  return {
    pacer,
    /** Moves the clock to `at` and runs the timers due by then, in one timer phase. */
    advanceTo(at: number) {
      clock = at
      const dueNow = timers.filter((timer) => timer.at <= at).sort((a, b) => a.at - b.at)
      for (const timer of dueNow) timers.splice(timers.indexOf(timer), 1)
      for (const timer of dueNow) timer.task()
    },
    /** Runs one later turn of the event loop. */
    turn() {
      const pending = turns
      turns = []
      for (const task of pending) task()
    },
    pendingTurns: () => turns.length,
  }
}

describe('refusal pacer', () => {
  it('answers a first refusal on a connection after the pace, not before', () => {
    const { pacer, advanceTo, turn } = harness()
    const connection = {}
    const answered: number[] = []
    pacer.pace(connection, () => answered.push(1))
    advanceTo(49)
    turn()
    expect(answered).toEqual([])
    advanceTo(50)
    turn()
    expect(answered).toEqual([1])
  })

  it('holds a connection that asks again before its Retry-After until it is over', () => {
    const { pacer, advanceTo, turn } = harness()
    const connection = {}
    let answers = 0
    pacer.pace(connection, () => answers++)
    advanceTo(50)
    turn()
    expect(answers).toBe(1)
    // Asked again at once: its last refusal left at 50, so the next leaves at 1050.
    advanceTo(60)
    expect(pacer.delayFor(connection)).toBe(990)
    pacer.pace(connection, () => answers++)
    advanceTo(1049)
    turn()
    expect(answers).toBe(1)
    advanceTo(1050)
    turn()
    expect(answers).toBe(2)
    // A client that waited its Retry-After out is paced like a new one.
    advanceTo(2100)
    expect(pacer.delayFor(connection)).toBe(50)
    expect(pacer.delayFor({})).toBe(50)
  })

  it('answers refusals that come due together a few per turn of the event loop', () => {
    const { pacer, advanceTo, turn, pendingTurns } = harness(16)
    let answers = 0
    for (let index = 0; index < 40; index++) pacer.pace({}, () => answers++)
    // All 40 come due in one timer phase: none leaves in it, then 16 per later turn.
    advanceTo(50)
    expect(answers).toBe(0)
    expect(pendingTurns()).toBe(1)
    turn()
    expect(answers).toBe(16)
    turn()
    expect(answers).toBe(32)
    turn()
    expect(answers).toBe(40)
    expect(pendingTurns()).toBe(0)
    // The queue is empty: a later refusal starts a new drain when it comes due.
    pacer.pace({}, () => answers++)
    advanceTo(100)
    turn()
    expect(answers).toBe(41)
  })
})
