// Pins what a client that only polls GET /v1/runs/{run_id} gets: the open permission asks (to
// answer over HTTP), the same `message` as the wait: true response once the run is over, and the
// `Idempotent-Replayed: true` header on a retry that returned the earlier run.
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { askingTool, createTestTools } from '../helpers/test-tools.js'

describe('GET /v1/runs/{run_id} for polling clients', () => {
  it('lists the open asks, takes the answer over HTTP, then carries the message of a wait: true run', async () => {
    const { app } = await buildTestApp({ extraTools: [askingTool] })
    const tool_uses = [{ type: 'tool_use', id: 't1', name: 'Ask', input: { name: 'x' } }]
    const created = await app.inject({ method: 'POST', url: '/v1/runs', payload: { wait: false, tool_uses } })
    const runId = created.json().run_id as string
    const read = async () => (await app.inject({ method: 'GET', url: `/v1/runs/${runId}` })).json()
    let view = await read()
    while (view.permission_requests.length === 0) {
      await sleep(10)
      view = await read()
    }
    expect(view.status).toBe('running')
    expect(view.message).toBeUndefined()
    expect(view.permission_requests).toEqual([
      {
        request_id: expect.any(String),
        tool_use_id: 't1',
        tool: 'Ask',
        input: { name: 'x' },
        message: expect.any(String),
        expires_at: expect.any(String),
        hints: { read_only: false, destructive: false, asked_by: { type: 'default' } },
      },
    ])
    const requestId = view.permission_requests[0].request_id as string
    const answered = await app.inject({
      method: 'POST',
      url: `/v1/runs/${runId}/permissions/${requestId}`,
      payload: { decision: 'allow' },
    })
    expect(answered.statusCode).toBe(200)
    while (view.status === 'running') {
      await sleep(10)
      view = await read()
    }
    expect(view.permission_requests).toEqual([])
    expect(view.message).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: 'changed x' }],
    })
  })

  it('gives a finished run the same message as the wait: true response', async () => {
    const tools = createTestTools()
    const { app } = await buildTestApp({ extraTools: tools.tools })
    const tool_uses = [{ type: 'tool_use', id: 'e', name: 'Echo', input: { text: 'hi' } }]
    const waited = (await app.inject({ method: 'POST', url: '/v1/runs', payload: { tool_uses } })).json()
    const view = (await app.inject({ method: 'GET', url: `/v1/runs/${waited.run_id}` })).json()
    expect(view.message).toEqual(waited.message)
  })

  it('marks a replayed idempotent request, and only that one', async () => {
    const tools = createTestTools()
    const { app } = await buildTestApp({ extraTools: tools.tools })
    const post = (wait: boolean) =>
      app.inject({
        method: 'POST',
        url: '/v1/runs',
        headers: { 'idempotency-key': `key-${wait}` },
        payload: { wait, tool_uses: [{ type: 'tool_use', id: 'e', name: 'Echo', input: { text: 'hi' } }] },
      })
    for (const wait of [true, false]) {
      const first = await post(wait)
      expect(first.headers['idempotent-replayed']).toBeUndefined()
      const retry = await post(wait)
      expect(retry.headers['idempotent-replayed']).toBe('true')
      expect(retry.json().run_id).toBe(first.json().run_id)
    }
  })
})
