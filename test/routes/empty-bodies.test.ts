// Pins how JSON bodies are read: an empty body on a route whose body is optional is no body (not
// a 400), a required body still gets a clear 400, and prototype poisoning is still refused.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'

const json = { 'content-type': 'application/json' }

describe('JSON bodies', () => {
  it('takes an empty body as no body where the body is optional', async () => {
    const { app } = await buildTestApp()
    const session = await app.inject({ method: 'POST', url: '/v1/sessions', headers: json, payload: '' })
    expect(session.statusCode).toBe(201)
    const run = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { wait: false, tool_uses: [{ type: 'tool_use', id: 'a', name: 'Bash', input: { command: 'true' } }] },
    })
    const cancel = await app.inject({ method: 'POST', url: `/v1/runs/${run.json().run_id}/cancel`, headers: json })
    expect(cancel.statusCode).toBe(202)
  })

  it('still refuses a missing required body and a poisoned one with problem+json', async () => {
    const { app } = await buildTestApp()
    const missing = await app.inject({ method: 'POST', url: '/v1/runs', headers: json, payload: '' })
    expect(missing.statusCode).toBe(400)
    expect(missing.headers['content-type']).toContain('application/problem+json')
    const poisoned = await app.inject({
      method: 'POST',
      url: '/v1/sessions',
      headers: json,
      payload: '{"__proto__": {"admin": true}}',
    })
    expect(poisoned.statusCode).toBe(400)
  })
})
