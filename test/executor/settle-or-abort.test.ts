// Pins settleOrAbort (docs/adr/0005, docs/adr/0310): the outcome is handed over exactly once — the
// work's value, its fault, or after an abort at most the grace later — with fake timers, never time.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { settleOrAbort } from '../../src/executor/settle-or-abort.js'

type Call = { onAbort?: () => void }

function watch<T>(work: Promise<T>, graceMs = 100) {
  const call: Call = {}
  const seen: { outcome: T | undefined; failure?: { fault: unknown } }[] = []
  settleOrAbort(work, call, (outcome, failure) => seen.push(failure ? { outcome, failure } : { outcome }), graceMs)
  return { call, seen }
}

describe('settleOrAbort', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('hands over the work’s value once it settles', async () => {
    const { seen } = watch(Promise.resolve('done'))
    expect(seen).toEqual([])
    await vi.advanceTimersByTimeAsync(0)
    expect(seen).toEqual([{ outcome: 'done' }])
  })

  it('hands over a rejection as a failure carrying the fault, even an undefined one', async () => {
    const { seen } = watch(Promise.reject(undefined))
    await vi.advanceTimersByTimeAsync(0)
    expect(seen).toEqual([{ outcome: undefined, failure: { fault: undefined } }])
  })

  it('after an abort, stops waiting for work that never settles once the grace is over', async () => {
    const { call, seen } = watch(new Promise<string>(() => {}), 100)
    call.onAbort?.()
    await vi.advanceTimersByTimeAsync(99)
    expect(seen).toEqual([])
    await vi.advanceTimersByTimeAsync(1)
    expect(seen).toEqual([{ outcome: undefined }])
  })

  it('after an abort, takes work that settles within the grace, and only once', async () => {
    let finish!: (value: string) => void
    const { call, seen } = watch(new Promise<string>((resolve) => (finish = resolve)), 100)
    call.onAbort?.()
    finish('wound down')
    await vi.advanceTimersByTimeAsync(200)
    expect(seen).toEqual([{ outcome: 'wound down' }])
  })
})
