// Pins startSweeper: it sweeps on its interval, never runs two sweeps at once, hands failures to
// onError and keeps going, stops when told, and refuses an interval that is not positive.
import { describe, expect, it, vi } from 'vitest'
import { startSweeper } from '../../src/async/start-sweeper.js'

describe('startSweeper', () => {
  it('sweeps repeatedly, reports a failure and sweeps again, and stops', async () => {
    let calls = 0
    const errors: unknown[] = []
    const stop = startSweeper(
      () => {
        calls++
        if (calls === 1) throw new Error('disk on fire')
      },
      5,
      (error) => errors.push(error),
    )
    await vi.waitFor(() => expect(calls).toBeGreaterThanOrEqual(3))
    stop()
    const stoppedAt = calls
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(calls).toBe(stoppedAt)
    expect(errors).toEqual([new Error('disk on fire')])
  })

  it('skips ticks while a sweep is still running', async () => {
    let running = 0
    let overlapped = false
    let finished = 0
    const stop = startSweeper(
      async () => {
        running++
        if (running > 1) overlapped = true
        await new Promise((resolve) => setTimeout(resolve, 25))
        running--
        finished++
      },
      2,
      () => {},
    )
    await vi.waitFor(() => expect(finished).toBeGreaterThanOrEqual(2))
    stop()
    expect(overlapped).toBe(false)
  })

  it.each([0, -1, Number.NaN])('refuses intervalMs %s', (intervalMs) => {
    expect(() =>
      startSweeper(
        () => {},
        intervalMs,
        () => {},
      ),
    ).toThrow(`Expected \`intervalMs\` to be a positive number, got ${intervalMs}`)
  })
})
