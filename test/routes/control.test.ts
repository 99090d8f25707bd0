// Pins run control over HTTP: cancel and interrupt, answering permission asks with a POST, and
// how long an ask waits depending on how the run was created.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { runCompleted } from '../helpers/run-completion.js'
import { createTestTools } from '../helpers/test-tools.js'

const REJECTED = "The user doesn't want to proceed with this tool use."

async function setup() {
  const tools = createTestTools()
  const { app } = await buildTestApp({ extraTools: tools.tools })
  const start = async (payload: object) =>
    (await app.inject({ method: 'POST', url: '/v1/runs', payload: { wait: false, ...payload } })).json()
      .run_id as string
  return { app, tools, start }
}

describe('run control', () => {
  it('cancels a run: the running call is aborted and every block gets a result', async () => {
    const { app, tools, start } = await setup()
    const runId = await start({
      max_concurrency: 1,
      tool_uses: [
        { type: 'tool_use', id: 'a', name: 'Gate', input: { key: 'a' } },
        { type: 'tool_use', id: 'b', name: 'Gate', input: { key: 'b' } },
      ],
    })
    await tools.started('a')
    const cancel = await app.inject({ method: 'POST', url: `/v1/runs/${runId}/cancel` })
    expect(cancel.statusCode).toBe(202)
    expect(cancel.json()).toEqual({ run_id: runId, status: 'running', cancel_requested: true })
    await runCompleted(app, runId)
    const run = (await app.inject({ url: `/v1/runs/${runId}` })).json()
    expect(run.status).toBe('cancelled')
    expect(run.results.map((result: { content: string }) => result.content.includes(REJECTED))).toEqual([true, true])
    expect(tools.executions.gate).toBe(1)
    const again = await app.inject({ method: 'POST', url: `/v1/runs/${runId}/cancel`, payload: { mode: 'interrupt' } })
    expect(again.json()).toEqual({ run_id: runId, status: 'cancelled', cancel_requested: false })
  })

  it('answers a permission ask with POST /permissions/{request_id}', async () => {
    const { app, tools, start } = await setup()
    const runId = await start({ tool_uses: [{ type: 'tool_use', id: 't', name: 'Touch', input: { name: 'x' } }] })
    const requested = await new Promise<{ request_id: string }>((resolve) => {
      void app.runManager.subscribe('default', runId, 0, (event) => {
        if (event.type === 'permission.requested') resolve(event)
      })
    })
    const url = `/v1/runs/${runId}/permissions/${requested.request_id}`
    const answer = await app.inject({ method: 'POST', url, payload: { decision: 'deny', message: 'Not today.' } })
    expect(answer.json()).toEqual({ run_id: runId, request_id: requested.request_id, decision: 'deny' })
    const events = await runCompleted(app, runId)
    const result = events.find((event) => event.type === 'tool.result')
    expect(result).toMatchObject({ result: { content: 'Not today.', is_error: true } })
    expect(tools.executions.touch).toBe(0)
    const late = await app.inject({ method: 'POST', url, payload: { decision: 'allow' } })
    expect(late.statusCode).toBe(404)
    expect(late.json().code).toBe('permission_request_not_found')
  })

  it('denies an ask at once in a wait:true run, and waits when permission_timeout_ms is set', async () => {
    const { app, tools } = await setup()
    const touch = { type: 'tool_use', id: 't', name: 'Touch', input: { name: 'x' } }
    const denied = await app.inject({ method: 'POST', url: '/v1/runs', payload: { tool_uses: [touch] } })
    expect(denied.json().results[0]).toMatchObject({ is_error: true, content: expect.stringContaining('no approver') })
    const waited = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { tool_uses: [touch], permission_timeout_ms: 1 },
    })
    expect(waited.json().results[0]).toMatchObject({ is_error: true, content: expect.stringContaining('Touch') })
    expect(tools.executions.touch).toBe(0)
  })
})
