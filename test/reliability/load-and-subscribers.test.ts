// Pins, on a listening server: admission refuses at once (503 instance full, 429 tenant over its
// share, both problem+json with Retry-After), before the body is read and paced, yet replays a finished
// run's Idempotency-Key when full, and /healthz answers during a burst; runs without a
// session_id leave no session; a failing PreToolUse hook denies the call; a subscriber that does
// not read is cut off by bytes with "resume with after=" (WebSocket 1013, SSE a last comment);
// subscribers per run are capped (docs/reliability.md, docs/adr/0120 … 0126).
import http from 'node:http'
import { setTimeout as delay } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { REFUSAL_PACE_MS } from '../../src/runs/capacity/admission.js'
import { floodTool, UNABSORBABLE_BYTES } from '../helpers/flood-tool.js'
import { runCompleted } from '../helpers/run-completion.js'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'

const ALLOW_BASH = { permissions: { allow: ['Bash'] } }
const bash = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } })

async function post(server: TestServer, route: string, body: unknown, key?: string) {
  const response = await fetch(`${server.baseUrl}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  })
  return { response, body: (await response.json()) as Record<string, unknown> }
}

/** A run that stays open: its Gate call waits until the app closes and drains it. */
const held = (id: string) => ({ wait: false, tool_uses: [{ type: 'tool_use', id, name: 'Gate', input: { key: id } }] })

describe('admission', () => {
  it('answers 429 for a tenant over its share and 503 when the instance is full, with Retry-After', async () => {
    const server = await startTestServer({
      extraTools: createTestTools().tools,
      env: {
        TOOLEXEC_API_KEYS: 'acme:acme-key,globex:globex-key',
        TOOLEXEC_SHUTDOWN_GRACE_MS: '50',
        TOOLEXEC_MAX_OPEN_RUNS: '3',
        TOOLEXEC_MAX_OPEN_RUNS_PER_TENANT: '2',
      },
    })
    for (const id of ['a1', 'a2'])
      expect((await post(server, '/v1/runs', held(id), 'acme-key')).response.status).toBe(202)
    const tenant = await post(server, '/v1/runs', held('a3'), 'acme-key')
    expect(tenant.response.status).toBe(429)
    expect(tenant.response.headers.get('retry-after')).toBe('1')
    expect(tenant.response.headers.get('content-type')).toContain('application/problem+json')
    expect(tenant.body).toMatchObject({ code: 'tenant_over_capacity' })
    expect((await post(server, '/v1/runs', held('g1'), 'globex-key')).response.status).toBe(202)
    const full = await post(server, '/v1/runs', held('g2'), 'globex-key')
    expect(full.response.status).toBe(503)
    expect(full.response.headers.get('retry-after')).toBe('1')
    expect(full.body).toMatchObject({ code: 'server_at_capacity' })
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text()
    expect(metrics).toMatch(/toolexec_admission_refused_total\{scope="tenant"\} 1/)
  })

  it('refuses before reading the body when full, but still answers an Idempotency-Key replay', async () => {
    const server = await startTestServer({
      extraTools: createTestTools().tools,
      env: { TOOLEXEC_SHUTDOWN_GRACE_MS: '50', TOOLEXEC_MAX_OPEN_RUNS: '1' },
    })
    const noop = { tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'select:X' } }] }
    const keyed = (body: string) =>
      fetch(`${server.baseUrl}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': 'retry-1' },
        body,
      })
    const first = await keyed(JSON.stringify(noop))
    expect(first.status).toBe(200)
    const { run_id: runId } = (await first.json()) as { run_id: string }
    expect((await post(server, '/v1/runs', held('h1'))).response.status).toBe(202)
    // A body that would be a 400 is not even read: the instance is full. The answer is paced, so
    // a client that retries at once cannot spin the loop (docs/adr/0182-capacity-refusals-are-paced.md).
    const refusedAt = performance.now()
    const garbage = await fetch(`${server.baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"not": "a run"',
    })
    expect(garbage.status).toBe(503)
    expect(performance.now() - refusedAt).toBeGreaterThanOrEqual(REFUSAL_PACE_MS - 5)
    expect(((await garbage.json()) as { code: string }).code).toBe('server_at_capacity')
    const replay = await keyed(JSON.stringify(noop))
    expect(replay.status).toBe(200)
    expect(replay.headers.get('idempotent-replayed')).toBe('true')
    expect(((await replay.json()) as { run_id: string }).run_id).toBe(runId)
  })

  it('keeps /healthz responsive during a burst of 200 runs against a cap of 8', async () => {
    const server = await startTestServer({ settings: ALLOW_BASH, env: { TOOLEXEC_MAX_OPEN_RUNS: '8' } })
    const statuses: number[] = []
    const burst = Array.from({ length: 200 }, (_, index) =>
      post(server, '/v1/runs', { tool_uses: [bash(`b${index}`, 'sleep 0.5')] }).then(({ response }) =>
        statuses.push(response.status),
      ),
    )
    for (let probe = 0; probe < 10; probe++) {
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200)
      await delay(20)
    }
    await Promise.all(burst)
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(8)
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(100)
    expect(statuses.every((status) => status === 200 || status === 503)).toBe(true)
    // How fast it answers is the bench's to measure (bench/load-burst.ts and bench/sandbox-burst.ts,
    // a p99 beside the idle floor of the same run), never a timed assertion here.
  }, 30_000)
})

describe('sessions and hooks', () => {
  it('runs without session_id leave no session behind', async () => {
    const server = await startTestServer({ settings: ALLOW_BASH })
    const sessions: string[] = []
    for (let index = 0; index < 20; index++) {
      const { body } = await post(server, '/v1/runs', { tool_uses: [bash(`e${index}`, 'echo hi')] })
      sessions.push(body.session_id as string)
    }
    for (const sessionId of sessions) {
      expect((await fetch(`${server.baseUrl}/v1/sessions/${sessionId}`)).status).toBe(404)
    }
  })

  it('a PreToolUse hook that times out denies the call, saying so', async () => {
    const server = await startTestServer({
      settings: {
        ...ALLOW_BASH,
        hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'sleep 5', timeout: 0.3 }] }] },
      },
    })
    const { body } = await post(server, '/v1/runs', { tool_uses: [bash('h1', 'echo ran')] })
    const [result] = body.results as Array<{ content: string; is_error?: boolean }>
    expect(result?.is_error).toBe(true)
    expect(result?.content).toContain('fail-closed')
    expect(result?.content).not.toContain('ran')
  })
})

describe('slow subscribers', () => {
  // More progress than the kernel can buffer for one connection on this host, so a reader that
  // does not read falls behind by more than the server's limit whatever the kernel's tuning; the
  // reader stays paused until the run is over, so nothing depends on how long the flood takes.
  const flood = {
    wait: false,
    tool_uses: [{ type: 'tool_use', id: 'flood', name: 'Flood', input: { bytes: UNABSORBABLE_BYTES } }],
  }
  const sse = { headers: { accept: 'text/event-stream' } }
  const env = { TOOLEXEC_MAX_SUBSCRIBER_BUFFER_BYTES: String(64 * 1024), TOOLEXEC_MAX_SUBSCRIBERS_PER_RUN: '2' }
  const startFloodServer = () => startTestServer({ settings: ALLOW_BASH, env, extraTools: [floodTool] })

  it('closes a WebSocket subscriber that does not read with 1013 and after=', async () => {
    const server = await startFloodServer()
    const { body } = await post(server, '/v1/runs', flood)
    const runId = body.run_id as string
    const socket = new WebSocket(`${server.wsUrl}/v1/runs/${runId}/events`)
    await new Promise((resolve) => socket.once('open', resolve))
    const raw = (socket as unknown as { _socket: import('node:net').Socket })._socket
    raw.pause()
    const closed = new Promise<[number, string]>((resolve) =>
      socket.once('close', (code, reason) => resolve([code, reason.toString()])),
    )
    await runCompleted(server.app, runId)
    raw.resume()
    const [code, reason] = await closed
    expect(code).toBe(1013)
    expect(reason).toMatch(/^subscriber too slow: resume with after=\d+$/)
  }, 60_000)

  it('ends an SSE stream that is not read with a comment naming after=, and caps subscribers per run', async () => {
    const server = await startFloodServer()
    const slow = await post(server, '/v1/runs', { wait: false, tool_uses: [bash('s1', 'sleep 2')] })
    const slowUrl = `${server.baseUrl}/v1/runs/${slow.body.run_id}/events`
    const open = [await fetch(slowUrl, sse), await fetch(slowUrl, sse)]
    expect(open.map((response) => response.status)).toEqual([200, 200])
    const third = await fetch(slowUrl, sse)
    expect(third.status).toBe(429)
    expect(third.headers.get('retry-after')).toBe('1')
    for (const response of open) await response.body?.cancel()

    const { body } = await post(server, '/v1/runs', flood)
    const runId = body.run_id as string
    const url = `${server.baseUrl}/v1/runs/${runId}/events`
    const response = await new Promise<http.IncomingMessage>((resolve) => http.get(url, sse, resolve))
    response.pause()
    await runCompleted(server.app, runId)
    let text = ''
    response.setEncoding('utf8')
    response.on('data', (chunk: string) => {
      text = (text + chunk).slice(-2_000)
    })
    response.resume()
    await new Promise((resolve) => response.once('end', resolve))
    expect(text).toMatch(/: subscriber too slow: resume with after=\d+ or Last-Event-ID\n\n$/)
  }, 60_000)
})
