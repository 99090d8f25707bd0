// Pins the request limits: body size, blocks per run, input size per block, each a 4xx problem
// that names the limit's variable.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { createTestTools } from '../helpers/test-tools.js'

const echo = (id: string, text: string) => ({ type: 'tool_use', id, name: 'Echo', input: { text } })

async function setup() {
  const tools = createTestTools()
  const { app } = await buildTestApp({
    extraTools: tools.tools,
    env: { TOOLEXEC_MAX_BODY_BYTES: '20000', TOOLEXEC_MAX_BLOCKS_PER_RUN: '3', TOOLEXEC_MAX_INPUT_BYTES: '1000' },
  })
  return app
}

describe('limits', () => {
  it.each([
    ['body', { tool_uses: [echo('a', 'x'.repeat(30_000))] }, 413, 'body_too_large', 'TOOLEXEC_MAX_BODY_BYTES'],
    [
      'blocks',
      { tool_uses: ['a', 'b', 'c', 'd'].map((id) => echo(id, id)) },
      400,
      'too_many_blocks',
      'TOOLEXEC_MAX_BLOCKS_PER_RUN',
    ],
    ['input', { tool_uses: [echo('a', 'x'.repeat(2000))] }, 413, 'input_too_large', 'TOOLEXEC_MAX_INPUT_BYTES'],
  ])('refuses a request over the %s limit', async (_name, payload, status, code, variable) => {
    const app = await setup()
    const response = await app.inject({ method: 'POST', url: '/v1/runs', payload })
    expect(response.statusCode).toBe(status)
    expect(response.headers['content-type']).toContain('application/problem+json')
    expect(response.json().code).toBe(code)
    expect(response.json().detail).toContain(variable)
  })

  it('accepts a request at the limits', async () => {
    const app = await setup()
    const response = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { tool_uses: ['a', 'b', 'c'].map((id) => echo(id, 'x'.repeat(900))) },
    })
    expect(response.statusCode).toBe(200)
  })

  it('refuses a body that is not JSON', async () => {
    const app = await setup()
    const wrongType = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: 'x',
      headers: { 'content-type': 'text/plain' },
    })
    expect(wrongType.statusCode).toBe(415)
    expect(wrongType.json().code).toBe('unsupported_media_type')
    const broken = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: '{',
      headers: { 'content-type': 'application/json' },
    })
    expect(broken.statusCode).toBe(400)
    expect(broken.json().code).toBe('invalid_request')
  })
})
