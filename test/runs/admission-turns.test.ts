// Pins how a burst of new runs is let into admission, a slice per turn of the event loop
// (docs/adr/0583), on turns the test drives: no wall-clock time is measured.
import { describe, expect, it } from 'vitest'
import { createAdmissionTurns } from '../../src/runs/capacity/admission-turns.js'

function harness(perTurn: number) {
  let turns: Array<() => void> = []
  const admissionTurns = createAdmissionTurns({
    perTurn,
    nextTurn: (task) => {
      turns.push(task)
    },
  })
  const went: number[] = []
  return {
    went,
    /** Offers request `id` for admission. */
    offer: (id: number) => admissionTurns.pass(() => went.push(id)),
    /** Runs one later turn of the event loop. */
    turn() {
      const pending = turns
      turns = []
      for (const task of pending) task()
    },
    pendingTurns: () => turns.length,
    waiting: () => admissionTurns.waiting,
  }
}

describe('admission in slices per turn', () => {
  it('lets a turn’s first requests through at once and the rest a slice per later turn, in order', () => {
    const turns = harness(3)
    for (let id = 1; id <= 8; id++) turns.offer(id)
    expect(turns.went).toEqual([1, 2, 3])
    expect(turns.waiting()).toBe(5)
    turns.turn()
    expect(turns.went).toEqual([1, 2, 3, 4, 5, 6])
    turns.turn()
    expect(turns.went).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect(turns.waiting()).toBe(0)
  })

  it('never lets a newcomer pass those already waiting, and counts a slice against its turn', () => {
    const turns = harness(2)
    for (let id = 1; id <= 4; id++) turns.offer(id)
    turns.turn() // 3 and 4 go in this turn, which is then full
    turns.offer(5)
    expect(turns.went).toEqual([1, 2, 3, 4])
    turns.offer(6)
    turns.turn()
    expect(turns.went).toEqual([1, 2, 3, 4, 5, 6])
  })

  it('stops asking for turns once nothing waits, and starts counting afresh', () => {
    const turns = harness(2)
    turns.offer(1)
    expect(turns.pendingTurns()).toBe(1)
    turns.turn()
    expect(turns.pendingTurns()).toBe(0)
    turns.offer(2)
    turns.offer(3)
    turns.offer(4)
    expect(turns.went).toEqual([1, 2, 3])
    turns.turn()
    expect(turns.went).toEqual([1, 2, 3, 4])
  })
})
