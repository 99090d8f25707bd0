// Pins approvals across instances with real processes on a real redis-server
// (docs/adr/0243-taking-over-a-waiting-run.md): an ask raised on A is listed and answered on B;
// when A is SIGKILLed while runs wait for a person, a survivor takes them over: an answer given
// on C right away runs the call there, a call that was executing on A gets the honest lost
// result, and every block has exactly one result, in block order, with no gap in the events.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js'
import type { WireJson } from '../helpers/wire-json.js'
import { connect, type Frame } from '../helpers/ws-client.js'

// Long enough that a loaded host does not take a live instance for a lost one.
const LEASE_MS = 3000

describe.skipIf(redisSkipReason !== undefined)('approvals under scale-out', () => {
  let redis: RedisServer
  let data: string
  let environment: Record<string, string>
  const started: ServiceProcess[] = []

  beforeAll(async () => {
    redis = await startRedisServer()
    data = mkdtempSync(path.join(tmpdir(), 'toolexec-approvals-'))
    environment = {
      TOOLEXEC_REDIS_URL: redis.url,
      TOOLEXEC_WORKSPACE: path.join(data, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_MEMORY_DIR: path.join(data, 'memory'),
      TOOLEXEC_SANDBOX: 'off',
      TOOLEXEC_INSTANCE_LEASE_MS: String(LEASE_MS),
    }
  }, 30_000)

  afterAll(async () => {
    await Promise.all(started.map((instance) => instance.stop()))
    await redis?.stop()
    if (data) rmSync(data, { recursive: true, force: true })
  }, 30_000)

  async function call(instance: ServiceProcess, method: string, url: string, body?: unknown): Promise<WireJson> {
    const response = await fetch(`${instance.baseUrl}${url}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    })
    return { ...((await response.json()) as WireJson), http: response.status }
  }

  /** The run's open asks as another instance lists them, once there are `count`. */
  async function openAsks(instance: ServiceProcess, runId: string, count: number): Promise<WireJson[]> {
    let asks: WireJson[] = []
    await vi.waitFor(
      async () => {
        const page = await call(instance, 'GET', '/v1/runs?has_open_asks=true')
        asks = (page.runs as WireJson[]).find((run) => run.run_id === runId)?.open_asks ?? []
        expect(asks.length).toBe(count)
      },
      { timeout: 15_000, interval: 25 },
    )
    return asks
  }

  const resultsOf = (frames: Frame[]) =>
    frames
      .filter((frame) => frame.type === 'tool.result')
      .map((frame) => frame.result as { tool_use_id: string; content: string; is_error?: boolean })

  it('answers on B an ask raised on A, and a survivor takes over the runs A left waiting', async () => {
    const instances = await Promise.all([0, 1, 2].map(() => startServiceProcess(environment)))
    started.push(...instances)
    const [a, b, c] = instances as [ServiceProcess, ServiceProcess, ServiceProcess]
    const session = async () =>
      (await call(a, 'POST', '/v1/sessions', { permissions: { allow: ['Bash'], ask: ['Glob'] } })).session_id as string
    const startRun = async (toolUses: WireJson[]) => {
      const response = await call(a, 'POST', '/v1/runs', {
        wait: false,
        session_id: await session(),
        tool_uses: toolUses,
      })
      expect(response.http).toBe(202)
      return response.run_id as string
    }
    const write = (id: string, file: string) => ({
      type: 'tool_use',
      id,
      name: 'Write',
      input: { file_path: file, content: `written by ${id}` },
    })

    // Raised on A, listed and answered on B; A runs the call.
    const first = await startRun([write('w0', 'first.txt')])
    const [firstAsk] = await openAsks(b, first, 1)
    expect(
      (await call(b, 'POST', `/v1/runs/${first}/permissions/${firstAsk!.request_id}`, { decision: 'allow' })).http,
    ).toBe(200)
    const firstEvents = connect(`${b.wsUrl}/v1/runs/${first}/events`)
    await firstEvents.closed
    expect(resultsOf(firstEvents.received).map((result) => result.is_error)).toEqual([undefined])

    // Two runs left waiting on A: one after a result already given, one beside a call executing.
    const waiting = await startRun([
      { type: 'tool_use', id: 'e1', name: 'Bash', input: { command: 'echo before' } },
      write('w1', 'after.txt'),
    ])
    const beside = await startRun([
      { type: 'tool_use', id: 's1', name: 'Bash', input: { command: 'sleep 30' } },
      { type: 'tool_use', id: 'g1', name: 'Glob', input: { pattern: '*.txt' } },
    ])
    const [waitingAsk] = await openAsks(c, waiting, 1)
    const [besideAsk] = await openAsks(c, beside, 1)
    const followWaiting = connect(`${b.wsUrl}/v1/runs/${waiting}/events`)
    const followBeside = connect(`${c.wsUrl}/v1/runs/${beside}/events`)
    await followBeside.until((frame) => frame.type === 'permission.requested')
    // s1 must have started on A, on any host, for its result to be the lost-call text.
    await followBeside.until((frame) => frame.type === 'tool.started' && frame.tool_use_id === 's1')
    a.kill()
    await a.exited
    // Answered on C at once, while no instance holds the runs: kept for the survivor.
    for (const [runId, ask] of [
      [waiting, waitingAsk],
      [beside, besideAsk],
    ] as const) {
      const answer = await call(c, 'POST', `/v1/runs/${runId}/permissions/${ask!.request_id}`, { decision: 'allow' })
      expect(answer.http).toBe(200)
    }
    await Promise.all([followWaiting.closed, followBeside.closed])

    const waitingResults = resultsOf(followWaiting.received)
    expect(waitingResults.map((result) => result.tool_use_id)).toEqual(['e1', 'w1'])
    expect(waitingResults[0]).toMatchObject({ content: 'before' })
    expect(waitingResults[1]!.is_error).toBeUndefined()
    expect(readFileSync(path.join(data, 'workspace', 'after.txt'), 'utf8')).toBe('written by w1')
    expect(followWaiting.received.at(-1)).toMatchObject({ type: 'run.completed', status: 'completed' })

    const besideResults = resultsOf(followBeside.received)
    expect(besideResults.map((result) => result.tool_use_id)).toEqual(['s1', 'g1'])
    expect(besideResults[0]).toMatchObject({ is_error: true })
    expect(besideResults[0]!.content).toContain('may have had partial effects')
    expect(besideResults[1]!.is_error).toBeUndefined()
    for (const follow of [followWaiting, followBeside]) {
      const seqs = follow.received.map((frame) => frame.seq)
      expect(seqs).toEqual(seqs.map((_, index) => index + 1))
      const resolved = follow.received.filter((frame) => frame.type === 'permission.resolved')
      expect(resolved).toHaveLength(1)
    }
    // The audit trail, read on any instance: the call lost with A is recorded as lost, the call run
    // by the survivor as ok after the answer given on C.
    const audit = (await call(b, 'GET', `/v1/audit?run_id=${beside}&kind=call`)).records as WireJson[]
    expect(audit.map((record) => [record.tool_use_id, record.outcome]).sort()).toEqual([
      ['g1', 'ok'],
      ['s1', 'lost'],
    ])
    // Every instance answers the same list; nothing is left waiting.
    const [fromB, fromC] = await Promise.all([b, c].map((instance) => call(instance, 'GET', '/v1/runs?status=running')))
    expect(fromB!.runs).toEqual([])
    expect(fromC!.runs).toEqual([])
  }, 90_000)
})
