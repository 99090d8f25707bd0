// Pins the executor's one way out (docs/adr/0190): progress through `event`, one `result` per
// block in block order, and `finish` exactly once, after the last result, carrying the outcome and
// its run.completed; the executor ends the run itself.
import { describe, expect, it } from 'vitest'
import { createRunExecutor } from '../../src/executor/run-executor.js'
import type { RunSink } from '../../src/executor/run-sink.js'
import { block, createGateTools, DEFAULT_OPTIONS, flush, makeSession } from './helpers.js'

describe('RunSink', () => {
  it('gets results in block order and one finish after them, never run.completed as an event', async () => {
    const gates = createGateTools()
    const blocks = [block('a', 'Gate', { safe: true }), block('b', 'Gate', { safe: true })]
    const seen: string[] = []
    const sink: RunSink = {
      event: (body) => seen.push('tool_use_id' in body ? `${body.type} ${body.tool_use_id}` : body.type),
      result: (body) => seen.push(`result ${body.tool_use_id}`),
      finish: (outcome, completion) => seen.push(`finish ${completion.status} ${outcome.results.length}`),
    }
    const executor = createRunExecutor({
      runId: 'run_sink',
      tools: [gates.make('Gate')],
      context: await makeSession(),
      parentMessage: { role: 'assistant', content: blocks },
      options: DEFAULT_OPTIONS,
      sink,
    })
    for (const b of blocks) executor.addToolUse(b)
    executor.endInput()
    gates.release('b')
    // b is done while a still runs: its result waits for a's, and the run is not over.
    for (let round = 0; round < 100 && !seen.includes('tool.completed b'); round++) await flush(1)
    expect(seen).toContain('tool.completed b')
    await flush()
    expect(seen.filter((entry) => entry.startsWith('result') || entry.startsWith('finish'))).toEqual([])
    gates.release('a')
    const outcome = await executor.finished
    expect(seen.filter((entry) => entry.startsWith('result') || entry.startsWith('finish'))).toEqual([
      'result a',
      'result b',
      'finish completed 2',
    ])
    expect(seen.some((entry) => entry.startsWith('run.completed'))).toBe(false)
    expect(seen[0]).toBe('run.started')
    expect(outcome.results.map((result) => result.tool_use_id)).toEqual(['a', 'b'])
  })
})
