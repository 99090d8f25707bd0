// Pins the event clock (docs/adr/0170-events-stamped-in-place.md): one ISO string per millisecond,
// a new one as soon as the millisecond moves, and always the ISO form of the current time.
import { describe, expect, it } from 'vitest'
import { createEventClock } from '../../src/events/event-clock.js'

describe('createEventClock', () => {
  it('answers the ISO time of now, reusing the string within a millisecond', () => {
    let now = Date.UTC(2026, 10, 22, 15, 0, 0, 5)
    const clock = createEventClock(() => now)
    const first = clock()
    expect(first).toBe('2026-11-22T15:00:00.005Z')
    expect(clock()).toBe(first)
    now += 1
    expect(clock()).toBe('2026-11-22T15:00:00.006Z')
    now += 60_000
    expect(clock()).toBe('2026-11-22T15:01:00.006Z')
  })
})
