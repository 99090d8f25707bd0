// Pins validation problems: an `errors` list (location, JSON pointer, message) beside a plain
// `detail` (no zod internals), the `arguments` slip named, unknown fields given the nearest known
// one, a query value shown as sent, one problem per field, and /v1/stream frames held to the same
// rules: unknown run.start keys refused, a bare tool_use frame told how to wrap it.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { injectSocket } from '../helpers/ws-client.js'

describe('validation problems', () => {
  it('lists each problem with a pointer and says plainly what is wrong', async () => {
    const { app } = await buildTestApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { tool_uses: [{ type: 'tool_use', id: 'a', name: 'Echo', arguments: {} }], wait: 'yes', wiat: 1 },
    })
    expect(response.statusCode).toBe(400)
    const problem = response.json()
    expect(problem.code).toBe('invalid_request')
    expect(problem.errors).toEqual([
      {
        location: 'body',
        pointer: '/tool_uses/0/input',
        message: '`input` is required (the tool input goes in `input`, not `arguments`)',
      },
      { location: 'body', pointer: '/wait', message: 'must be a boolean, not a string' },
      { location: 'body', pointer: '/wiat', message: 'unknown field `wiat`: did you mean `wait`?' },
    ])
    expect(problem.detail).toBe(
      'body.tool_uses.0.input: `input` is required (the tool input goes in `input`, not `arguments`); ' +
        'body.wait: must be a boolean, not a string; body.wiat: unknown field `wiat`: did you mean `wait`?',
    )
  })

  it('names the field an unknown one most likely meant, nested ones too', async () => {
    const { app } = await buildTestApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { toolUses: [], messages: [], timeout: 5, tool_uses: [] },
    })
    expect(response.json().errors.map((issue: { message: string }) => issue.message)).toEqual([
      'unknown field `toolUses`: did you mean `tool_uses`?',
      'unknown field `messages`: did you mean `message`?',
      'unknown field `timeout`: did you mean `timeout_ms`?',
    ])
    const nested = await app.inject({
      method: 'POST',
      url: '/v1/sessions',
      payload: { permissions: { alow: [] }, zzzz: 1 },
    })
    expect(nested.json().errors).toEqual([
      { location: 'body', pointer: '/permissions/alow', message: 'unknown field `alow`: did you mean `allow`?' },
      { location: 'body', pointer: '/zzzz', message: 'unknown field `zzzz`' },
    ])
  })

  it('shows a query value as sent, and gives a field of the wrong type one problem', async () => {
    const { app } = await buildTestApp()
    const run = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { wait: false, tool_uses: [{ type: 'tool_use', id: 'a', name: 'Missing', input: {} }] },
    })
    const events = await app.inject({
      method: 'GET',
      url: `/v1/runs/${run.json().run_id}/events?after=abc`,
      headers: { accept: 'text/event-stream' },
    })
    expect(events.statusCode).toBe(400)
    expect(events.json().detail).toBe('querystring.after: must be a number, not "abc"')
    const session = await app.inject({ method: 'POST', url: '/v1/sessions', payload: { toolsets: 'anthropic_client' } })
    expect(session.json().errors).toEqual([
      { location: 'body', pointer: '/toolsets', message: 'must be an array, not a string' },
    ])
  })

  it('checks tool_use blocks inside a message the same way', async () => {
    const { app } = await buildTestApp()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { message: { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'Echo' }] } },
    })
    expect(response.json().errors).toEqual([
      { location: 'body', pointer: '/message/content/0/input', message: '`input` is required' },
    ])
    expect(response.body).not.toContain('nonoptional')
  })

  it('refuses unknown run.start keys on /v1/stream and tells a bare tool_use frame how to wrap it', async () => {
    const { app } = await buildTestApp()
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start', wiat: true })
    stream.send({ type: 'tool_use', id: 'a', name: 'Echo', input: {} })
    await stream.until(() => stream.received.filter((frame) => frame.type === 'error').length === 2)
    expect(stream.received.filter((frame) => frame.type === 'error')).toEqual([
      { type: 'error', code: 'invalid_frame', message: 'frame.wiat: unknown field `wiat`' },
      {
        type: 'error',
        code: 'invalid_frame',
        message: expect.stringContaining('wrap the block, {"type": "tool_use", "tool_use": {'),
      },
    ])
  })
})
