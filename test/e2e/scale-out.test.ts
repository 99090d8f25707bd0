// Pins scale-out on Redis with three service processes on one real redis-server: a run started on
// A is followed on B and replayed on C, a cancel on B kills the process on A, an ask raised on A is
// answered on B (and is a 404 once closed), 50 retries with one Idempotency-Key spread over the
// instances execute once, a session held by a run on A is busy on B, blobs are served anywhere, and
// a session keeps every field (its toolsets) on every instance.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js'
import { connect, type Frame } from '../helpers/ws-client.js'
import { processesMatching } from '../tools/bash/process-helpers.js'

const bash = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } })

describe.skipIf(redisSkipReason !== undefined)('three instances on one Redis', () => {
  let redis: RedisServer
  let a: ServiceProcess
  let b: ServiceProcess
  let c: ServiceProcess
  let data: string

  beforeAll(async () => {
    redis = await startRedisServer()
    data = mkdtempSync(path.join(tmpdir(), 'toolexec-scale-'))
    const environment = {
      TOOLEXEC_REDIS_URL: redis.url,
      TOOLEXEC_WORKSPACE: path.join(data, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_MEMORY_DIR: path.join(data, 'memory'),
      TOOLEXEC_SANDBOX: 'off',
      TOOLEXEC_MAX_RESULT_CHARS: '2000',
    }
    // The first one alone: it records the shared volumes the other two are checked against.
    a = await startServiceProcess(environment)
    ;[b, c] = await Promise.all([startServiceProcess(environment), startServiceProcess(environment)])
  }, 90_000)

  afterAll(async () => {
    await Promise.all([a, b, c].map((instance) => instance?.stop()))
    await redis?.stop()
    if (data) rmSync(data, { recursive: true, force: true })
  }, 30_000)

  async function post(instance: ServiceProcess, url: string, body: unknown, headers: Record<string, string> = {}) {
    return fetch(`${instance.baseUrl}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    })
  }

  async function session(instance: ServiceProcess, allowBash: boolean) {
    const response = await post(instance, '/v1/sessions', allowBash ? { permissions: { allow: ['Bash'] } } : {})
    expect(response.status).toBe(201)
    return (await response.json()) as { session_id: string; cwd: string }
  }

  async function startRun(instance: ServiceProcess, body: Record<string, unknown>) {
    const response = await post(instance, '/v1/runs', { wait: false, ...body })
    expect(response.status).toBe(202)
    return (await response.json()) as { run_id: string; events_url: string }
  }

  async function followToEnd(instance: ServiceProcess, url: string): Promise<Frame[]> {
    const client = connect(`${instance.wsUrl}${url}`)
    await client.opened
    await client.closed
    return client.received
  }

  it("keeps a session's toolsets on every instance: read on B, its pool on B, a memory run on C", async () => {
    const created = await post(a, '/v1/sessions', { toolsets: ['anthropic_client'] })
    expect(created.status).toBe(201)
    const { session_id } = (await created.json()) as { session_id: string }
    const read = (await (await fetch(`${b.baseUrl}/v1/sessions/${session_id}`)).json()) as { toolsets?: string[] }
    expect(read.toolsets).toEqual(['anthropic_client'])
    const pool = (await (await fetch(`${b.baseUrl}/v1/tools?session_id=${session_id}`)).json()) as {
      tools: Array<{ name: string }>
    }
    expect(pool.tools.map((tool) => tool.name)).toContain('memory')
    expect(pool.tools.map((tool) => tool.name)).not.toContain('Bash')
    const run = await post(c, '/v1/runs', {
      session_id,
      tool_uses: [{ type: 'tool_use', id: 'm1', name: 'memory', input: { command: 'view', path: '/memories' } }],
    })
    const [result] = ((await run.json()) as { results: Array<{ content: string; is_error?: boolean }> }).results
    expect(result?.is_error).toBeUndefined()
    expect(result?.content).not.toContain('No such tool')
  })
  it('follows a run started on A from B, in order, and replays it from a middle seq on C', async () => {
    const { session_id } = await session(a, true)
    const run = await startRun(a, {
      session_id,
      tool_uses: [bash('t1', 'sleep 0.3; echo one'), bash('t2', 'echo two'), bash('t3', 'sleep 0.2; echo three')],
    })
    const followed = await followToEnd(b, run.events_url)
    expect(followed.map((frame) => frame.seq)).toEqual(followed.map((_, index) => index + 1))
    expect(followed.at(-1)).toMatchObject({ type: 'run.completed', status: 'completed' })
    expect(followed.filter((frame) => frame.type === 'tool.result').map((frame) => frame.tool_use_id)).toEqual([
      't1',
      't2',
      't3',
    ])
    const replayed = await followToEnd(c, `${run.events_url}?after=4`)
    expect(replayed).toEqual(followed.slice(4))
    const viewed = (await (await fetch(`${c.baseUrl}/v1/runs/${run.run_id}`)).json()) as {
      status: string
      results: unknown[]
    }
    expect(viewed.status).toBe('completed')
    expect(viewed.results).toHaveLength(3)
  }, 30_000)

  it('aborts on A the calls of a run cancelled on B, killing their process', async () => {
    const { session_id } = await session(a, true)
    // Found by its command line from here: `$$` would be a pid inside the call's PID namespace.
    const marker = `30.${process.pid}`
    const run = await startRun(a, { session_id, tool_uses: [bash('t1', `sleep ${marker}; echo finished`)] })
    const client = connect(`${b.wsUrl}${run.events_url}`)
    await client.until((frame) => frame.type === 'tool.started')
    await vi.waitFor(async () => expect(await processesMatching(`sleep ${marker}`)).not.toEqual([]), REAL_PROCESS_WAIT)
    const cancelled = await post(b, `/v1/runs/${run.run_id}/cancel`, {})
    expect(cancelled.status).toBe(202)
    expect(await cancelled.json()).toMatchObject({ cancel_requested: true })
    await client.closed
    expect(client.received.at(-1)).toMatchObject({ type: 'run.completed', status: 'cancelled' })
    await vi.waitFor(async () => expect(await processesMatching(`sleep ${marker}`)).toEqual([]), REAL_PROCESS_WAIT)
  }, 30_000)

  it('answers on B an ask raised on A, and refuses an answer to a closed ask anywhere', async () => {
    const { session_id, cwd } = await session(a, false)
    const run = await startRun(a, { session_id, tool_uses: [bash('t1', 'touch approved.txt && echo approved')] })
    const client = connect(`${a.wsUrl}${run.events_url}`)
    const asked = await client.until((frame) => frame.type === 'permission.requested')
    const answered = await post(b, `/v1/runs/${run.run_id}/permissions/${asked.request_id}`, { decision: 'allow' })
    expect(answered.status).toBe(200)
    await client.closed
    const result = client.received.find((frame) => frame.type === 'tool.result')
    expect(result).toMatchObject({ result: { content: 'approved' } })
    expect(readFileSync(path.join(cwd, 'approved.txt'), 'utf8')).toBe('')
    const again = await post(c, `/v1/runs/${run.run_id}/permissions/${asked.request_id}`, { decision: 'allow' })
    expect(again.status).toBe(404)
    expect(again.headers.get('content-type')).toContain('application/problem+json')
    expect(await again.json()).toMatchObject({ code: 'permission_request_not_found' })
  }, 30_000)

  it('executes once for 50 concurrent retries of one Idempotency-Key spread over the instances', async () => {
    const { session_id, cwd } = await session(a, true)
    const body = { session_id, wait: true, tool_uses: [bash('t1', 'echo ran >> lines.txt; sleep 0.3; echo ok')] }
    const instances = [a, b, c]
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        post(instances[index % 3]!, '/v1/runs', body, { 'idempotency-key': 'one-key' }),
      ),
    )
    const bodies = (await Promise.all(responses.map((response) => response.json()))) as { run_id: string }[]
    expect(responses.map((response) => response.status)).toEqual(responses.map(() => 200))
    expect(new Set(bodies.map((response) => response.run_id)).size).toBe(1)
    expect(readFileSync(path.join(cwd, 'lines.txt'), 'utf8')).toBe('ran\n')
  }, 60_000)

  it('refuses on B a session held by a run on A (409), and serves on C a blob written on A', async () => {
    const { session_id } = await session(a, true)
    const big = 'x'.repeat(5000)
    const run = await startRun(a, { session_id, tool_uses: [bash('t1', `printf '${big}'; sleep 1`)] })
    const busy = await post(b, '/v1/runs', { session_id, tool_uses: [bash('t2', 'echo no')] })
    expect(busy.status).toBe(409)
    expect(await busy.json()).toMatchObject({ code: 'session_busy' })
    const frames = await followToEnd(b, run.events_url)
    const result = frames.find((frame) => frame.type === 'tool.result') as Frame & { blob_id: string }
    expect(result.blob_id).toEqual(expect.any(String))
    const blob = await fetch(`${c.baseUrl}/v1/blobs/${result.blob_id}`)
    expect(blob.status).toBe(200)
    expect(await blob.text()).toBe(big)
  }, 30_000)
})
