// Pins permission asks whose call ends without an answer (run deadline): the ask is resolved
// before run.completed, so nothing follows run.completed and the ask cannot be answered late.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { RunEvent } from '../../src/events/run-event.js'
import { REJECT_MESSAGE } from '../../src/messages/tool-error-messages.js'
import { buildTool, deferToPermissionRules } from '../../src/tool/build-tool.js'
import { buildTestApp } from '../helpers/build-test-app.js'
import { runCompleted } from '../helpers/run-completion.js'

/** Not read-only and without a rule: every call asks. */
function createAskingTool() {
  const calls: string[] = []
  const tool = buildTool({
    name: 'Ask',
    ruleFamily: 'none',
    inputSchema: z.strictObject({ name: z.string() }),
    maxResultSizeChars: 100_000,
    description: async () => 'Changes something after approval',
    prompt: async () => 'Changes something after approval',
    checkPermissions: deferToPermissionRules,
    call: async (input) => {
      calls.push(input.name)
      return { data: `changed ${input.name}` }
    },
  })
  return { tool, calls }
}

describe('permission asks that outlive their call', () => {
  it('resolves an open ask when its call is stopped by the run deadline, before run.completed', async () => {
    const asking = createAskingTool()
    const { app } = await buildTestApp({ extraTools: [asking.tool] })
    const created = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      // The deadline only has to outlast the ask being emitted; the ask itself would wait 60 s.
      payload: {
        wait: false,
        timeout_ms: 1000,
        tool_uses: [{ type: 'tool_use', id: 't', name: 'Ask', input: { name: 'x' } }],
      },
    })
    const runId = created.json().run_id as string
    const events: RunEvent[] = []
    const completed = new Promise<void>((resolve) => {
      void app.runManager.subscribe('default', runId, 0, (event) => {
        events.push(event)
        if (event.type === 'run.completed') resolve()
      })
    })
    await completed
    const requested = events.find((event) => event.type === 'permission.requested')
    expect(requested).toBeDefined()
    const requestId = (requested as { request_id: string }).request_id
    const types = events.map((event) => event.type)
    const resolvedAt = events.findIndex((event) => event.type === 'permission.resolved')
    expect(resolvedAt).toBeGreaterThan(types.indexOf('permission.requested'))
    expect(events[resolvedAt]).toMatchObject({ request_id: requestId, decision: 'deny' })
    expect(resolvedAt).toBeLessThan(types.indexOf('tool.result'))
    const late = await app.inject({
      method: 'POST',
      url: `/v1/runs/${runId}/permissions/${requestId}`,
      payload: { decision: 'allow' },
    })
    expect(late.statusCode).toBe(404)
    expect(asking.calls).toEqual([])
    // Everything the run stored ends with run.completed.
    expect((await runCompleted(app, runId)).at(-1)!.type).toBe('run.completed')
  })

  it('rejects a call still waiting for approval on interrupt, like any call that has not started', async () => {
    const asking = createAskingTool()
    const { app } = await buildTestApp({ extraTools: [asking.tool] })
    const created = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { wait: false, tool_uses: [{ type: 'tool_use', id: 't', name: 'Ask', input: { name: 'x' } }] },
    })
    const runId = created.json().run_id as string
    const asked = new Promise<void>((resolve) => {
      void app.runManager.subscribe('default', runId, 0, (event) => {
        if (event.type === 'permission.requested') resolve()
      })
    })
    await asked
    const cancel = await app.inject({ method: 'POST', url: `/v1/runs/${runId}/cancel`, payload: { mode: 'interrupt' } })
    expect(cancel.statusCode).toBe(202)
    const events = await runCompleted(app, runId)
    const result = events.find((event) => event.type === 'tool.result') as { result: { content: string } }
    expect(result.result.content).toBe(REJECT_MESSAGE)
    expect(asking.calls).toEqual([])
  })
})
