// Pins settleOnce and graceAfterAbort (docs/adr/0005, docs/adr/0310, docs/adr/0441): a call's outcome
// is handed over exactly once — the pipeline's outcome, or after an abort at most the grace later —
// with fake timers, never time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { graceAfterAbort, settleOnce } from '../../src/executor/settle-or-abort.js'

function watch() {
  const seen: (string | undefined)[] = []
  const settle = settleOnce<string>((outcome) => seen.push(outcome))
  return { settle, seen }
}

describe('settleOnce and graceAfterAbort', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('hands over the outcome once, whatever comes after', () => {
    const { settle, seen } = watch()
    settle('done')
    settle('again')
    settle(undefined)
    expect(seen).toEqual(['done'])
  })

  it('after an abort, stops waiting for work that never settles once the grace is over', async () => {
    const { settle, seen } = watch()
    graceAfterAbort(settle, 100)
    await vi.advanceTimersByTimeAsync(99)
    expect(seen).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(seen).toEqual([undefined])
  })

  it('after an abort, takes work that settles within the grace, and only once', async () => {
    const { settle, seen } = watch()
    graceAfterAbort(settle, 100)
    settle('wound down')
    await vi.advanceTimersByTimeAsync(200)
    expect(seen).toEqual(['wound down'])
  })

  it('does not keep the process alive for the grace', () => {
    const { settle } = watch()
    const unref = vi.spyOn(globalThis, 'setTimeout')
    graceAfterAbort(settle, 100)
    const timer = unref.mock.results[0]?.value as { hasRef?: () => boolean }
    expect(timer.hasRef?.() ?? false).toBe(false)
    unref.mockRestore()
  })
})
