// Pins the executor's own argument check (a bad cap is refused, not repaired) and its read-only
// counters of executing and queued calls.
import { describe, expect, it } from 'vitest'
import { createRunExecutor } from '../../src/executor/run-executor.js'
import { sinkOf } from '../../src/executor/run-sink.js'
import { block, createGateTools, DEFAULT_OPTIONS, flush, makeSession, startRun } from './helpers.js'

describe('createRunExecutor options', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses maxConcurrency %s with a TypeError that names it', async (cap) => {
    const context = await makeSession()
    expect(() =>
      createRunExecutor({
        runId: 'run_bad',
        tools: [],
        context,
        parentMessage: { role: 'assistant', content: [] },
        options: { ...DEFAULT_OPTIONS, maxConcurrency: cap },
        sink: sinkOf(() => {}),
      }),
    ).toThrow(/`maxConcurrency`/)
  })

  it('counts executing and queued calls as they move through the cap', async () => {
    const gates = createGateTools()
    const tool = gates.make('Gate')
    const blocks = ['a', 'b', 'c'].map((id) => block(id, 'Gate', { safe: true }))
    const run = await startRun([tool], blocks, { maxConcurrency: 2 })
    await flush()
    expect(run.executor.executingCount).toBe(2)
    expect(run.executor.queuedCount).toBe(1)
    gates.release('a')
    await flush()
    expect(run.executor.executingCount).toBe(2)
    expect(run.executor.queuedCount).toBe(0)
    gates.release('b')
    gates.release('c')
    await run.done()
    expect(run.executor.executingCount).toBe(0)
  })
})
