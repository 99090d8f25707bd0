import v8 from 'node:v8'
import { describe, expect, it } from 'vitest'
import { createAuditLog } from '../../src/audit/audit-log.js'
import { createMemoryAuditStore } from '../../src/stores/memory/memory-audit-store.js'

/** V8's own check that two objects have one hidden class (natives syntax, switched on for this parse only). */
function sameShapeCheck(): (a: object, b: object) => boolean {
  v8.setFlagsFromString('--allow-natives-syntax')
  try {
    return new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean
  } finally {
    v8.setFlagsFromString('--no-allow-natives-syntax')
  }
}

describe('memory audit store: what a retained record costs (docs/adr/0519)', () => {
  it('keeps records of one kind in one shared shape, fields in the order of the entry and id last', async () => {
    const store = createMemoryAuditStore({ ttlMs: 60_000, maxRecords: 1_000 })
    const log = createAuditLog({ store, includeInputs: false })
    const base = { tenant: 'default', tool_use_id: 'toolu_1', tool: 'Bash', input: { command: 'true' } }
    for (let index = 0; index < 200; index++) {
      const ids = { session_id: `session_${index}`, run_id: `run_${index}` }
      log.record({ kind: 'decision', ...base, ...ids, decision: 'allow', source: { type: 'rule', rule: 'Bash' } })
      log.record({ kind: 'call', ...base, ...ids, outcome: 'ok', duration_ms: index + 0.5 })
      if (index % 20 === 0) await log.flush()
    }
    await log.flush()
    const { records } = await store.list({ tenant: 'default', limit: 400 })
    expect(records).toHaveLength(400)
    const sameShape = sameShapeCheck()
    const decisions = records.filter((record) => record.kind === 'decision')
    const calls = records.filter((record) => record.kind === 'call')
    expect(decisions.filter((record) => !sameShape(record, decisions[0]!))).toEqual([])
    expect(calls.filter((record) => !sameShape(record, calls[0]!))).toEqual([])
    expect(Object.keys(calls[0]!)).toEqual([
      'ts',
      'kind',
      'tenant',
      'tool_use_id',
      'tool',
      'session_id',
      'run_id',
      'outcome',
      'duration_ms',
      'input_sha256',
      'id',
    ])
  })
})
