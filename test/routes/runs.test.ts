// Pins POST /v1/runs and GET /v1/runs/{id}: sync and async runs, block order, max_tokens, problem+json errors.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { runCompleted } from '../helpers/run-completion.js'
import { createTestTools } from '../helpers/test-tools.js'

const echo = (id: string, text: string) => ({ type: 'tool_use', id, name: 'Echo', input: { text } })

async function setup() {
  const tools = createTestTools()
  const { app } = await buildTestApp({ extraTools: tools.tools })
  return { app, tools }
}

describe('POST /v1/runs', () => {
  it('runs a batch and answers with results in block order and the user message', async () => {
    const { app } = await setup()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: {
        tool_uses: [echo('a', 'one'), echo('b', 'two'), { type: 'tool_use', id: 'c', name: 'Nope', input: {} }],
      },
    })
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body.status).toBe('completed')
    expect(body.results).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: 'one' },
      { type: 'tool_result', tool_use_id: 'b', content: 'two' },
      {
        type: 'tool_result',
        tool_use_id: 'c',
        content: '<tool_use_error>Error: No such tool available: Nope</tool_use_error>',
        is_error: true,
      },
    ])
    expect(body.message).toEqual({ role: 'user', content: body.results })
    expect(body.blobs).toEqual([])
    expect(body.run_id).toMatch(/^run_/)
  })

  it('picks tool_use blocks out of an assistant message and refuses the last one after max_tokens', async () => {
    const { app, tools } = await setup()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: {
        message: {
          role: 'assistant',
          content: [{ type: 'text', text: 'Let me check.' }, echo('a', 'one'), echo('b', 'cut')],
          stop_reason: 'max_tokens',
        },
      },
    })
    const { results } = response.json()
    expect(results.map((result: { tool_use_id: string }) => result.tool_use_id)).toEqual(['a', 'b'])
    expect(results[0].content).toBe('one')
    expect(results[1].is_error).toBe(true)
    expect(results[1].content).toContain('max_tokens')
    expect(tools.executions.echo).toBe(1)
  })

  it('answers 202 with an events url when wait is false, and GET shows the run', async () => {
    const { app, tools } = await setup()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { wait: false, tool_uses: [{ type: 'tool_use', id: 'g', name: 'Gate', input: { key: 'k' } }] },
    })
    expect(response.statusCode).toBe(202)
    const { run_id, status, events_url } = response.json()
    expect(status).toBe('running')
    expect(events_url).toBe(`/v1/runs/${run_id}/events`)
    await tools.started('k')
    const running = (await app.inject({ url: `/v1/runs/${run_id}` })).json()
    expect(running).toMatchObject({ run_id, status: 'running', tool_use_ids: ['g'], results: [] })
    tools.open('k', 'done')
    await runCompleted(app, run_id)
    const finished = (await app.inject({ url: `/v1/runs/${run_id}` })).json()
    expect(finished.status).toBe('completed')
    expect(finished.results).toEqual([{ type: 'tool_result', tool_use_id: 'g', content: 'done' }])
    expect(finished.finished_at).toBeTypeOf('string')
  })

  it.each([
    [{ tool_uses: [echo('a', '1'), echo('a', '2')] }, 400, 'duplicate_tool_use_id'],
    [{ tool_uses: [] }, 400, 'no_tool_uses'],
    [{ message: { role: 'assistant', content: [{ type: 'text', text: 'hi' }] } }, 400, 'no_tool_uses'],
    [{}, 400, 'invalid_request'],
    [{ tool_uses: [echo('a', '1')], message: { role: 'assistant', content: [] } }, 400, 'invalid_request'],
    [{ tool_uses: [{ type: 'tool_use', id: 'a' }] }, 400, 'invalid_request'],
    [{ tool_uses: [echo('a', '1')], surprise: true }, 400, 'invalid_request'],
    [{ tool_uses: [echo('a', '1')], session_id: 'ses_missing' }, 404, 'session_not_found'],
  ])('answers %j with %i %s as problem+json', async (payload, status, code) => {
    const { app } = await setup()
    const response = await app.inject({ method: 'POST', url: '/v1/runs', payload })
    expect(response.statusCode).toBe(status)
    expect(response.headers['content-type']).toContain('application/problem+json')
    expect(response.json()).toMatchObject({ status, code, type: `urn:toolexec:error:${code}` })
    expect(response.json().detail).toBeTypeOf('string')
  })

  it('404s an unknown run', async () => {
    const { app } = await setup()
    const response = await app.inject({ url: '/v1/runs/run_nope' })
    expect(response.statusCode).toBe(404)
    expect(response.json().code).toBe('run_not_found')
  })
})
