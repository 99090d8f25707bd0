// Pins what scale-out on Redis does when a part fails, with real processes: an instance killed
// with SIGKILL mid-run has its run closed by a survivor within the lease (one honest result per
// call, status `lost`); a Redis restart with AOF mid-run loses no event; Redis away means 503 with
// Retry-After and an unready /readyz, then recovery; instances with different directories refuse to start.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js'
import { connect, type Frame } from '../helpers/ws-client.js'

const bash = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } })
const LEASE_MS = 1500

describe.skipIf(redisSkipReason !== undefined)('failures under scale-out', () => {
  let redis: RedisServer
  let data: string
  let environment: Record<string, string>
  const started: ServiceProcess[] = []
  const start = async (extra: Record<string, string> = {}) => {
    const instance = await startServiceProcess({ ...environment, ...extra })
    started.push(instance)
    return instance
  }

  beforeAll(async () => {
    redis = await startRedisServer({ appendOnly: true })
    data = mkdtempSync(path.join(tmpdir(), 'toolexec-scale-failures-'))
    environment = {
      TOOLEXEC_REDIS_URL: redis.url,
      TOOLEXEC_WORKSPACE: path.join(data, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_SANDBOX: 'off',
      TOOLEXEC_INSTANCE_LEASE_MS: String(LEASE_MS),
    }
  }, 30_000)

  afterAll(async () => {
    await Promise.all(started.map((instance) => instance.stop()))
    await redis?.stop()
    if (data) rmSync(data, { recursive: true, force: true })
  }, 30_000)

  async function post(instance: ServiceProcess, url: string, body: unknown) {
    return fetch(`${instance.baseUrl}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  }

  async function startRun(instance: ServiceProcess, toolUses: unknown[]) {
    const session = await post(instance, '/v1/sessions', { permissions: { allow: ['Bash'] } })
    const { session_id } = (await session.json()) as { session_id: string }
    const response = await post(instance, '/v1/runs', { wait: false, session_id, tool_uses: toolUses })
    expect(response.status).toBe(202)
    return { session_id, ...((await response.json()) as { run_id: string; events_url: string }) }
  }

  it('closes on B, within the lease, a run whose instance A was killed mid-run', async () => {
    const [a, b] = await Promise.all([start(), start()])
    const run = await startRun(a, [
      bash('t1', 'echo quick'),
      // Writes, so they run in series: t3 has not started when A dies, on any host. (Read-only
      // calls would run beside t2, and t3's held result would race the kill: docs/adr/0238.)
      bash('t2', 'sleep 5; touch slow'),
      bash('t3', 'touch never'),
    ])
    const client = connect(`${b.wsUrl}${run.events_url}`)
    await client.until((frame) => frame.type === 'tool.started' && frame.tool_use_id === 't2')
    await client.until((frame) => frame.type === 'tool.result' && frame.tool_use_id === 't1')
    const killedAt = Date.now()
    a.kill()
    await client.closed
    const closedIn = Date.now() - killedAt
    // The lease, plus half a lease for the survivor's next look, plus slack for a loaded machine.
    expect(closedIn).toBeLessThan(LEASE_MS * 2 + 3000)
    const results = client.received.filter((frame) => frame.type === 'tool.result') as (Frame & {
      result: { tool_use_id: string; content: string; is_error?: boolean }
    })[]
    expect(results.map((frame) => frame.result.tool_use_id)).toEqual(['t1', 't2', 't3'])
    expect(results[0]!.result).toMatchObject({ content: 'quick' })
    for (const frame of results.slice(1)) {
      expect(frame.result.is_error).toBe(true)
      expect(frame.result.content).toContain('the toolexec instance running it was lost')
      expect(frame.result.content).toContain('may have had partial effects: check the state before retrying')
    }
    expect(client.received.at(-1)).toMatchObject({ type: 'run.completed', status: 'lost' })
    expect(client.received.map((frame) => frame.seq)).toEqual(client.received.map((_, index) => index + 1))
    const record = (await (await fetch(`${b.baseUrl}/v1/runs/${run.run_id}`)).json()) as {
      status: string
      results: unknown[]
    }
    expect(record).toMatchObject({ status: 'lost' })
    expect(record.results).toHaveLength(3)
    expect(existsSync(path.join(data, 'workspace', 'never'))).toBe(false)
    // The session is free again.
    const next = await post(b, '/v1/runs', { session_id: run.session_id, tool_uses: [bash('t4', 'echo again')] })
    expect(next.status).toBe(200)
    await b.stop()
  }, 60_000)

  it('loses no event when Redis restarts (AOF) mid-run, and answers 503 with Retry-After while it is away', async () => {
    const [a, b] = await Promise.all([start(), start()])
    const toolUses = Array.from({ length: 6 }, (_, index) => bash(`t${index}`, `sleep 0.4; echo step${index}`))
    const run = await startRun(a, toolUses)
    const client = connect(`${b.wsUrl}${run.events_url}`)
    await client.until((frame) => frame.type === 'tool.result' && frame.tool_use_id === 't0')
    const restarted = redis.restart({ downMs: 1500 })
    await vi.waitFor(async () => {
      const ready = await fetch(`${a.baseUrl}/readyz`)
      expect(ready.status).toBe(503)
      expect(await ready.json()).toMatchObject({
        status: 'store_unavailable',
        reason: expect.stringContaining('redis'),
      })
    })
    const refused = await post(a, '/v1/runs', { tool_uses: [bash('x', 'echo no')] })
    expect(refused.status).toBe(503)
    expect(refused.headers.get('retry-after')).toBe('2')
    expect(await refused.json()).toMatchObject({ code: 'store_unavailable' })
    await restarted
    await client.closed
    const seqs = client.received.map((frame) => frame.seq)
    expect(seqs).toEqual(seqs.map((_, index) => index + 1))
    expect(client.received.filter((frame) => frame.type === 'tool.result')).toHaveLength(6)
    expect(client.received.at(-1)).toMatchObject({ type: 'run.completed', status: 'completed' })
    const replay = connect(`${a.wsUrl}${run.events_url}`)
    await replay.closed
    expect(replay.received).toEqual(client.received)
    await vi.waitFor(async () => expect((await fetch(`${a.baseUrl}/readyz`)).status).toBe(200), { timeout: 10_000 })
    const after = await post(a, '/v1/runs', { tool_uses: [bash('y', 'echo back')] })
    expect(after.status).not.toBe(503)
    await Promise.all([a.stop(), b.stop()])
  }, 60_000)

  it('refuses to start an instance whose workspace is not the one the others on this Redis use', async () => {
    await start()
    await expect(start({ TOOLEXEC_WORKSPACE: path.join(data, 'other-workspace') })).rejects.toThrow(
      /TOOLEXEC_WORKSPACE.*not the directory the other instances on this Redis use/,
    )
  }, 60_000)
})
