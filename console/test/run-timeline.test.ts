// Pins how the console folds a run's events (console/src/run-timeline.ts): calls in block order
// with their inputs, live output bounded, asks opened and resolved, and a replay overlap or a gap
// counted rather than applied twice or hidden.
import { describe, expect, it } from 'vitest'
import type { RunEvent } from '../src/api.js'
import { RunTimeline } from '../src/run-timeline.js'

let seq = 0
const at = '2026-11-25T10:00:00.000Z'
const stamp = (body: Record<string, unknown>) => ({ ...body, seq: ++seq, run_id: 'run_1', ts: at }) as RunEvent

function events(): RunEvent[] {
  seq = 0
  return [
    stamp({ type: 'run.started', tool_use_ids: ['a', 'b'] }),
    stamp({ type: 'tool.queued', tool_use_id: 'b', name: 'Write', input: { file_path: 'x' }, concurrency_safe: false }),
    stamp({ type: 'tool.queued', tool_use_id: 'a', name: 'Bash', input: { command: 'ls' }, concurrency_safe: true }),
    stamp({ type: 'tool.started', tool_use_id: 'a' }),
    stamp({ type: 'tool.progress', tool_use_id: 'a', data: { output: 'one\n' } }),
    stamp({ type: 'tool.progress', tool_use_id: 'a', data: { output: 'two\n' } }),
    stamp({
      type: 'permission.requested',
      request_id: 'perm_1',
      tool_use_id: 'b',
      tool: 'Write',
      input: { file_path: 'x' },
      message: 'Write needs approval',
    }),
    stamp({ type: 'tool.completed', tool_use_id: 'a', is_error: false, duration_ms: 12 }),
    stamp({
      type: 'tool.result',
      tool_use_id: 'a',
      result: { type: 'tool_result', tool_use_id: 'a', content: 'one\ntwo' },
    }),
    stamp({ type: 'permission.resolved', request_id: 'perm_1', decision: 'deny', answered_by: 'alice' }),
    stamp({
      type: 'tool.result',
      tool_use_id: 'b',
      result: { type: 'tool_result', tool_use_id: 'b', content: 'no', is_error: true },
    }),
    stamp({ type: 'run.completed', status: 'completed' }),
  ]
}

describe('RunTimeline', () => {
  it('shows calls in block order with inputs, output, results, and who answered', () => {
    const timeline = new RunTimeline()
    const all = events()
    for (const event of all.slice(0, 7)) timeline.apply(event)
    expect(timeline.orderedCalls.map((call) => [call.id, call.name, call.phase])).toEqual([
      ['a', 'Bash', 'running'],
      ['b', 'Write', 'asking'],
    ])
    expect(timeline.calls.get('a')?.output).toBe('one\ntwo\n')
    expect(timeline.openAsks().map((ask) => ask.request.request_id)).toEqual(['perm_1'])
    for (const event of all.slice(7)) timeline.apply(event)
    expect(timeline.status).toBe('completed')
    expect(timeline.openAsks()).toEqual([])
    expect(timeline.asks.get('perm_1')?.resolution).toEqual({ decision: 'deny', answered_by: 'alice' })
    expect(timeline.calls.get('a')).toMatchObject({ durationMs: 12, input: { command: 'ls' }, phase: 'finished' })
    expect(timeline.calls.get('b')?.result?.is_error).toBe(true)
    expect([timeline.applied, timeline.lastSeq, timeline.duplicates, timeline.gaps]).toEqual([12, 12, 0, 0])
  })

  it('applies an event replayed after a reconnect once, and counts a gap', () => {
    const timeline = new RunTimeline()
    const all = events()
    for (const event of all.slice(0, 5)) timeline.apply(event)
    for (const event of all.slice(3, 8)) timeline.apply(event)
    expect(timeline.duplicates).toBe(2)
    expect(timeline.calls.get('a')?.output).toBe('one\ntwo\n')
    timeline.apply(all[9]!)
    expect(timeline.gaps).toBe(1)
  })

  it('keeps the tail of a long output and says how much it dropped', () => {
    const timeline = new RunTimeline()
    const all = events()
    timeline.apply(all[0]!)
    const chunk = 'x'.repeat(10_000)
    for (let index = 0; index < 10; index++)
      timeline.apply({ ...all[4]!, seq: index + 2, data: { output: chunk } } as RunEvent)
    const call = timeline.calls.get('a')!
    expect(call.output.length + call.outputDropped).toBe(100_000)
    expect(call.output.length).toBeLessThanOrEqual(32_768)
    expect(call.rev).toBeGreaterThanOrEqual(10)
  })
})
