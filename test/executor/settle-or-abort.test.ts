// Pins handOver and graceAfterAbort (docs/adr/0005, docs/adr/0310, docs/adr/0441): a call's outcome
// is handed over exactly once — the pipeline's outcome, or after an abort at most the grace later —
// with fake timers, never time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { graceAfterAbort, handOver, type SettleHolder } from '../../src/executor/settle-or-abort.js'

function watch() {
  const seen: (string | undefined)[] = []
  const call: SettleHolder<string> = { settle: (outcome) => seen.push(outcome) }
  return { call, seen }
}

describe('handOver and graceAfterAbort', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('hands over the outcome once, whatever comes after', () => {
    const { call, seen } = watch()
    handOver(call, 'done')
    handOver(call, 'again')
    handOver(call, undefined)
    expect(seen).toEqual(['done'])
    expect(call.settle).toBeUndefined()
  })

  it('after an abort, stops waiting for work that never settles once the grace is over', async () => {
    const { call, seen } = watch()
    graceAfterAbort(call, 100)
    await vi.advanceTimersByTimeAsync(99)
    expect(seen).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(seen).toEqual([undefined])
  })

  it('after an abort, takes work that settles within the grace, and only once', async () => {
    const { call, seen } = watch()
    graceAfterAbort(call, 100)
    handOver(call, 'wound down')
    await vi.advanceTimersByTimeAsync(200)
    expect(seen).toEqual(['wound down'])
  })
})
