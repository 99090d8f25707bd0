// Pins what an executor answers once its run is over (docs/adr/0436-a-finished-run-lets-go-of-its-calls.md):
// it lets go of its calls, yet still gives the run's results, and a late cancel changes nothing.
import { describe, expect, it } from 'vitest'
import { block, createGateTools, startRun } from './helpers.js'

describe('a finished run', () => {
  it('still gives its results, in block order, and takes a late cancel quietly', async () => {
    const tools = createGateTools()
    const blocks = [block('toolu_a', 'Gate'), block('toolu_b', 'Gate', { safe: true }), block('toolu_c', 'Gate')]
    const run = await startRun([tools.make('Gate')], blocks)
    for (const id of ['toolu_a', 'toolu_b', 'toolu_c']) tools.release(id)
    const outcome = await run.done()
    expect(run.executor.results()).toEqual(outcome.results)
    expect(run.executor.queuedCount).toBe(0)
    expect(run.executor.executingCount).toBe(0)
    const eventsBefore = run.events.length
    run.executor.cancel()
    run.executor.awaitingAnswer('toolu_b', true)
    expect(run.executor.results()).toEqual(outcome.results)
    expect(run.events).toHaveLength(eventsBefore)
  })
})
