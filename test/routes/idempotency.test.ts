// Pins Idempotency-Key on POST /v1/runs: a retry (even a concurrent one) maps to the same run and
// never executes again; the same key with another body is 409; a failed request frees its key.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { createTestTools } from '../helpers/test-tools.js'

const body = (text: string) => ({ tool_uses: [{ type: 'tool_use', id: 'e', name: 'Echo', input: { text } }] })

async function setup() {
  const tools = createTestTools()
  const { app } = await buildTestApp({ extraTools: tools.tools })
  const post = (key: string, payload: object) =>
    app.inject({ method: 'POST', url: '/v1/runs', headers: { 'idempotency-key': key }, payload })
  return { app, tools, post }
}

describe('Idempotency-Key', () => {
  it('executes two concurrent requests with one key once and answers both with the same run', async () => {
    const { tools, post } = await setup()
    const [first, second] = await Promise.all([post('k1', body('once')), post('k1', body('once'))])
    expect(first.statusCode).toBe(200)
    expect(second.statusCode).toBe(200)
    expect(second.json()).toEqual(first.json())
    expect(tools.executions.echo).toBe(1)
  })

  it('replays a finished run on a later retry, even with keys in another order', async () => {
    const { tools, post } = await setup()
    const first = await post('k2', { wait: true, ...body('again') })
    const retry = await post('k2', { ...body('again'), wait: true })
    expect(retry.json()).toEqual(first.json())
    expect(tools.executions.echo).toBe(1)
  })

  it('answers 409 for the same key with another body', async () => {
    const { post } = await setup()
    await post('k3', body('one'))
    const conflict = await post('k3', body('two'))
    expect(conflict.statusCode).toBe(409)
    expect(conflict.json().code).toBe('idempotency_key_reused')
  })

  it('frees the key of a request that failed, so a corrected retry runs', async () => {
    const { tools, post } = await setup()
    const failed = await post('k4', { ...body('x'), session_id: 'ses_missing' })
    expect(failed.statusCode).toBe(404)
    const fixed = await post('k4', body('x'))
    expect(fixed.statusCode).toBe(200)
    expect(tools.executions.echo).toBe(1)
  })

  it('answers a wait:false retry of a running run with 202 and the same run', async () => {
    const { tools, post } = await setup()
    const payload = { wait: false, tool_uses: [{ type: 'tool_use', id: 'g', name: 'Gate', input: { key: 'g' } }] }
    const first = await post('k5', payload)
    const retry = await post('k5', payload)
    expect(retry.statusCode).toBe(202)
    expect(retry.json()).toEqual(first.json())
    await tools.started('g')
    expect(tools.executions.gate).toBe(1)
    tools.open('g')
  })
})
