// Pins the summary line of capacity refusals (docs/adr/0362): one line per window with the counts
// by code, none for a quiet window; the window's timer is the test's own.
import { expect, it } from 'vitest'
import { createRefusalLog, type RefusalCounts } from '../../src/runs/capacity/refusal-log.js'

it('writes one line per window with the refusals counted by code, and none when there were none', () => {
  const lines: RefusalCounts[] = []
  const timers: Array<{ ms: number; task: () => void }> = []
  const log = createRefusalLog({
    everyMs: 10_000,
    write: (counts) => lines.push(counts),
    after: (ms, task) => timers.push({ ms, task }),
  })
  for (let index = 0; index < 300; index++) log.note('server_at_capacity')
  log.note('tenant_over_capacity')
  expect(lines).toEqual([])
  expect(timers.map((timer) => timer.ms)).toEqual([10_000])
  timers.shift()?.task()
  expect(lines).toEqual([{ server_at_capacity: 300, tenant_over_capacity: 1 }])
  expect(timers).toEqual([])
  log.note('server_at_capacity')
  expect(timers).toHaveLength(1)
  timers.shift()?.task()
  expect(lines.at(-1)).toEqual({ server_at_capacity: 1 })
})
