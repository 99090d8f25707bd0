// Pins the limits on real connections: an oversized body is a 413 problem naming the variable, an
// oversized WebSocket frame gets an error frame and the socket stays up, a huge one closes it (1009).
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'
import { connect } from '../helpers/ws-client.js'

describe('limits on real connections', () => {
  it('answers an oversized body with 413 problem+json', async () => {
    const { baseUrl } = await startTestServer({ env: { TOOLEXEC_MAX_BODY_BYTES: '1000' } })
    const response = await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        tool_uses: [{ type: 'tool_use', id: 'a', name: 'Echo', input: { text: 'x'.repeat(5000) } }],
      }),
    })
    expect(response.status).toBe(413)
    expect(response.headers.get('content-type')).toContain('application/problem+json')
    expect(await response.json()).toMatchObject({
      code: 'body_too_large',
      detail: expect.stringContaining('TOOLEXEC_MAX_BODY_BYTES'),
    })
  })

  it('answers an oversized frame with an error frame and keeps the socket open', async () => {
    const { wsUrl } = await startTestServer({ env: { TOOLEXEC_MAX_FRAME_BYTES: '1024' } })
    const client = connect(`${wsUrl}/v1/stream`)
    await client.opened
    client.send({ type: 'run.start', session_id: 'x'.repeat(2000) })
    const error = await client.until((frame) => frame.type === 'error')
    expect(error).toMatchObject({
      code: 'frame_too_large',
      message: expect.stringContaining('TOOLEXEC_MAX_FRAME_BYTES'),
    })
    client.send({ type: 'run.start' })
    client.send({ type: 'input.end' })
    expect((await client.closed).code).toBe(1000)
    expect(client.received.at(-1)).toMatchObject({ type: 'run.completed' })
  })

  it('closes the socket with 1009 for a frame far over the limit', async () => {
    const { wsUrl } = await startTestServer({ env: { TOOLEXEC_MAX_FRAME_BYTES: '1024' } })
    const client = connect(`${wsUrl}/v1/stream`)
    await client.opened
    client.send('x'.repeat(10_000))
    expect((await client.closed).code).toBe(1009)
  })
})
