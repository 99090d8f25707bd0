// Pins that every URL the service hands out can be fetched: a tool_use id of 64 characters makes a
// blob id past fastify's default path-parameter limit (100), which answered 414 with fastify's own
// JSON; and that a path parameter past the router's limit is a problem+json 414 like every error.
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'

describe('long ids in URLs', () => {
  it('serves the blob of a call whose tool_use id is 64 characters long', async () => {
    const { baseUrl } = await startTestServer()
    const id = `toolu_${'x'.repeat(58)}`
    const response = await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tool_uses: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'seq 1 20000' } }] }),
    })
    const body = (await response.json()) as { blobs: Array<{ url: string }> }
    const url = body.blobs[0]!.url
    expect(url.length).toBeGreaterThan(100)
    const blob = await fetch(`${baseUrl}${url}`)
    expect(blob.status).toBe(200)
    expect((await blob.text()).trimEnd().split('\n').at(-1)).toBe('20000')
  })

  it('answers a path parameter past the router limit with a problem+json 414', async () => {
    const { baseUrl } = await startTestServer()
    const response = await fetch(`${baseUrl}/v1/blobs/${'a'.repeat(600)}.txt`)
    expect(response.status).toBe(414)
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/)
    expect(await response.json()).toMatchObject({ code: 'path_parameter_too_long', status: 414 })
  })
})
