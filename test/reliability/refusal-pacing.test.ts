// Pins, on a listening server: a client that asks again on the same connection before its
// refusal's Retry-After is over gets the same refusal (503 problem+json, Retry-After: 1), once that
// Retry-After is over (docs/adr/0360-a-connection-that-ignores-retry-after-waits-for-it.md).
// Only a lower bound on time is asserted: a timer never fires early. At info level a refusal
// writes no line of its own, only a summary line with the counts (docs/adr/0362).
import http from 'node:http'
import { describe, expect, it } from 'vitest'
import { RETRY_AFTER_SECONDS } from '../../src/runs/capacity/admission.js'
import { buildTestApp } from '../helpers/build-test-app.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'

type Answer = { status: number; headers: http.IncomingHttpHeaders; body: Record<string, unknown>; at: number }

/** POST on `agent`'s one kept-alive connection; resolves when the whole answer is in. */
function post(url: string, agent: http.Agent, body: unknown): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json' } })
    request.on('error', reject)
    request.on('response', (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>,
          at: performance.now(),
        }),
      )
    })
    request.end(JSON.stringify(body))
  })
}

describe('refusal pacing', () => {
  it('answers a connection that ignores Retry-After the same refusal, after its Retry-After', async () => {
    const server = await startTestServer({
      extraTools: createTestTools().tools,
      env: { TOOLEXEC_SHUTDOWN_GRACE_MS: '50', TOOLEXEC_MAX_OPEN_RUNS: '1' },
    })
    const url = `${server.baseUrl}/v1/runs`
    const held = { wait: false, tool_uses: [{ type: 'tool_use', id: 'h1', name: 'Gate', input: { key: 'h1' } }] }
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
    try {
      expect((await post(url, agent, held)).status).toBe(202)
      const noop = { tool_uses: [{ type: 'tool_use', id: 't1', name: 'ToolSearch', input: { query: 'select:X' } }] }
      const first = await post(url, agent, noop)
      const second = await post(url, agent, noop)
      for (const refused of [first, second]) {
        expect(refused.status).toBe(503)
        expect(refused.headers['retry-after']).toBe(String(RETRY_AFTER_SECONDS))
        expect(refused.headers['content-type']).toContain('application/problem+json')
        expect(refused.body).toMatchObject({ code: 'server_at_capacity' })
      }
      expect(second.body).toEqual(first.body)
      // Some slack for the first answer's trip to the client; the pace alone would be 50 ms.
      expect(second.at - first.at).toBeGreaterThanOrEqual(RETRY_AFTER_SECONDS * 1000 - 100)
    } finally {
      agent.destroy()
    }
  })
})

describe('refusal logging', () => {
  it('writes no line per refusal at info, and one summary line with the counts', async () => {
    const lines: string[] = []
    const { app } = await buildTestApp({
      extraTools: createTestTools().tools,
      env: { LOG_LEVEL: 'info', TOOLEXEC_SHUTDOWN_GRACE_MS: '50', TOOLEXEC_MAX_OPEN_RUNS: '1' },
      logStream: { write: (line) => lines.push(line) },
    })
    const held = { wait: false, tool_uses: [{ type: 'tool_use', id: 'h1', name: 'Gate', input: { key: 'h1' } }] }
    expect((await app.inject({ method: 'POST', url: '/v1/runs', payload: held })).statusCode).toBe(202)
    const noop = { tool_uses: [{ type: 'tool_use', id: 't1', name: 'ToolSearch', input: { query: 'select:X' } }] }
    for (const id of ['refused-1', 'refused-2']) {
      const refused = await app.inject({
        method: 'POST',
        url: '/v1/runs',
        headers: { 'x-request-id': id },
        payload: noop,
      })
      expect(refused.statusCode).toBe(503)
    }
    await app.close()
    const records = lines.map((line) => JSON.parse(line) as { reqId?: string; msg: string; refused?: unknown })
    // Only fastify's "incoming request", written before admission is asked.
    for (const id of ['refused-1', 'refused-2'])
      expect(records.filter((record) => record.reqId === id).map((record) => record.msg)).toEqual(['incoming request'])
    expect(records.filter((record) => record.msg === 'runs refused for capacity')).toEqual([
      expect.objectContaining({ refused: { server_at_capacity: 2 } }),
    ])
  })
})
