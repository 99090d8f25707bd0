// Pins the permission broker: an ask becomes permission.requested, the first answer wins and is
// announced with permission.resolved, timeouts and "nobody to ask" resolve without events.
import { describe, expect, it } from 'vitest'
import type { RunEventBody } from '../../src/events/run-event.js'
import { createPermissionBroker } from '../../src/runs/control/permission-broker.js'

const prompt = { toolUseId: 't1', tool: 'Write', input: { file_path: '/w/x' }, message: 'Write wants to change /w/x' }

describe('createPermissionBroker', () => {
  it('emits the request and resolves with the first answer only', async () => {
    const events: RunEventBody[] = []
    const broker = createPermissionBroker({ emit: (event) => events.push(event), timeoutMs: 60_000 })
    const answer = broker.prompter.request(prompt)
    const requested = events[0] as Extract<RunEventBody, { type: 'permission.requested' }>
    expect(requested).toMatchObject({
      type: 'permission.requested',
      tool_use_id: 't1',
      tool: 'Write',
      input: prompt.input,
    })
    expect(broker.answer(requested.request_id, { decision: 'allow', updatedInput: { file_path: '/w/y' } })).toBe(true)
    expect(broker.answer(requested.request_id, { decision: 'deny' })).toBe(false)
    expect(await answer).toEqual({ decision: 'allow', updatedInput: { file_path: '/w/y' } })
    expect(events[1]).toEqual({
      type: 'permission.resolved',
      request_id: requested.request_id,
      decision: 'allow',
      reason: 'answer',
    })
    expect(broker.pendingCount).toBe(0)
  })

  it('says nobody can answer when there is no timeout (a wait:true run)', async () => {
    const events: RunEventBody[] = []
    const broker = createPermissionBroker({ emit: (event) => events.push(event), timeoutMs: undefined })
    expect(await broker.prompter.request(prompt)).toEqual({ noApprover: true })
    expect(events).toEqual([])
  })

  it('times out as a deny, and denyAll settles every open ask', async () => {
    const events: RunEventBody[] = []
    const timed = createPermissionBroker({ emit: (event) => events.push(event), timeoutMs: 1 })
    expect(await timed.prompter.request(prompt)).toEqual({ timedOut: true })
    expect(events.map((event) => event.type)).toEqual(['permission.requested', 'permission.resolved'])
    const open = createPermissionBroker({ emit: () => {}, timeoutMs: 60_000 })
    const pending = [open.prompter.request(prompt), open.prompter.request(prompt)]
    open.denyAll('The run was cancelled.')
    expect(await Promise.all(pending)).toEqual([
      { decision: 'deny', message: 'The run was cancelled.', ended: 'cancelled' },
      { decision: 'deny', message: 'The run was cancelled.', ended: 'cancelled' },
    ])
  })

  it('withdraws only the asks of a call that ended, so they can no longer be answered', async () => {
    const events: RunEventBody[] = []
    const broker = createPermissionBroker({ emit: (event) => events.push(event), timeoutMs: 60_000 })
    const ended = broker.prompter.request(prompt)
    const other = broker.prompter.request({ ...prompt, toolUseId: 't2' })
    const [first, second] = events as Array<Extract<RunEventBody, { type: 'permission.requested' }>>
    broker.withdraw('t1', 'The call ended before the ask was answered.')
    expect(await ended).toEqual({
      decision: 'deny',
      message: 'The call ended before the ask was answered.',
      ended: 'cancelled',
    })
    expect(events[2]).toEqual({
      type: 'permission.resolved',
      request_id: first!.request_id,
      decision: 'deny',
      reason: 'withdrawn',
    })
    expect(broker.answer(first!.request_id, { decision: 'allow' })).toBe(false)
    expect(broker.answer(second!.request_id, { decision: 'allow' })).toBe(true)
    expect(await other).toEqual({ decision: 'allow' })
    expect(broker.pendingCount).toBe(0)
  })
})
