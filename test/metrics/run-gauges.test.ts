// Pins the run and call gauges (docs/adr/0173-gauges-read-at-scrape-time.md): what a scrape
// shows follows the events observed so far, and a run's calls end with their run.
import { describe, expect, it } from 'vitest'
import type { RunEvent } from '../../src/events/run-event.js'
import { createRunMetrics } from '../../src/metrics/run-metrics.js'

const stamp = { run_id: 'run_1', ts: '2026-11-22T15:00:00.000Z' }
let seq = 0
const event = (body: Record<string, unknown>) => ({ ...body, ...stamp, seq: ++seq }) as RunEvent

async function gauges(metrics: ReturnType<typeof createRunMetrics>) {
  const text = await metrics.registry.metrics()
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
  return {
    runs: value('toolexec_runs_active'),
    queued: value('toolexec_tool_calls_queued'),
    executing: value('toolexec_tool_calls_executing'),
    calls: /toolexec_tool_calls_total\{tool="Read",outcome="success"\} (\d+)/.exec(text)?.[1],
  }
}

describe('run metrics gauges', () => {
  it('show active runs, queued and executing calls at each scrape', async () => {
    const metrics = createRunMetrics({ isKnownTool: (name) => name === 'Read' })
    metrics.observe(event({ type: 'run.started', tool_use_ids: ['a', 'b'] }))
    metrics.observe(event({ type: 'tool.queued', tool_use_id: 'a', name: 'Read', concurrency_safe: true }))
    metrics.observe(event({ type: 'tool.queued', tool_use_id: 'b', name: 'Read', concurrency_safe: true }))
    expect(await gauges(metrics)).toEqual({ runs: 1, queued: 2, executing: 0, calls: undefined })
    metrics.observe(event({ type: 'tool.started', tool_use_id: 'a' }))
    expect(await gauges(metrics)).toEqual({ runs: 1, queued: 1, executing: 1, calls: undefined })
    metrics.observe(event({ type: 'tool.completed', tool_use_id: 'a', is_error: false, duration_ms: 3 }))
    metrics.observe(event({ type: 'tool.started', tool_use_id: 'b' }))
    metrics.observe(event({ type: 'tool.completed', tool_use_id: 'b', is_error: false, duration_ms: 3 }))
    metrics.observe(event({ type: 'run.completed', status: 'completed' }))
    expect(await gauges(metrics)).toEqual({ runs: 0, queued: 0, executing: 0, calls: '2' })
  })
})
