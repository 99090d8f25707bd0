// Pins toolexec's worker mode against the Managed Agents protocol double: every call answered once,
// asks wait for their confirmation, an interrupt cancels what runs, the journal stops a re-run,
// a lost or stopped lease ends the claim (docs/managed-agents.md).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import type { Settings } from '../../src/config/settings-schema.js'
import { buildTool } from '../../src/tool/build-tool.js'
import { type ManagedAgentsDouble, startManagedAgentsDouble } from '../helpers/managed-agents/index.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { startTestServer } from '../helpers/start-test-server.js'

let double: ManagedAgentsDouble
let environment: { id: string; key: string }

beforeEach(async () => {
  double = await startManagedAgentsDouble({ leaseTtlSeconds: 60 })
  environment = double.createEnvironment()
})
afterEach(async () => {
  await double.close()
})

/** A tool whose result the API refuses (an image without data): the session waits on it for ever. */
const refusedImage = buildTool({
  name: 'RefusedImage',
  ruleFamily: 'none',
  inputSchema: z.strictObject({}),
  maxResultSizeChars: 1000,
  description: async () => 'Returns an image with no data',
  prompt: async () => 'Returns an image with no data',
  isReadOnly: () => true,
  call: async () => ({ data: '' }),
  mapToolResult: () => ({
    content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } }],
  }),
})

async function startWorker(env: Record<string, string> = {}, settings?: Settings) {
  return startTestServer({
    extraTools: [refusedImage],
    ...(settings === undefined ? {} : { settings }),
    env: {
      TOOLEXEC_MANAGED_AGENTS_ENVIRONMENT: environment.id,
      TOOLEXEC_MANAGED_AGENTS_KEY: environment.key,
      TOOLEXEC_MANAGED_AGENTS_BASE_URL: double.baseURL,
      TOOLEXEC_MANAGED_AGENTS_POLL_INTERVAL_MS: '20',
      LOG_LEVEL: process.env.MA_LOG ?? 'silent',
      ...env,
    },
  })
}

const textOf = (content: unknown) =>
  (content as Array<{ type: string; text?: string }>).map((block) => block.text ?? `[${block.type}]`).join('')

describe('toolexec as a Managed Agents worker', () => {
  it('answers every call of a turn once, in the API shape, never with an empty text', async () => {
    await startWorker()
    const session = double.openSession(environment.id, {
      turns: [
        [
          { name: 'bash', input: { command: 'echo one' } },
          { name: 'bash', input: { command: 'true' } },
          { name: 'glob', input: { pattern: '*.nothing' } },
        ],
        [{ name: 'write', input: { file_path: 'a.txt', content: 'hello' } }],
        [{ name: 'read', input: { file_path: 'a.txt' } }],
      ],
    })
    await session.waitForEnd()
    const ids = session.turnIds.flat()
    for (const id of ids) expect(session.resultsFor(id)).toHaveLength(1)
    expect(session.refusedResults()).toEqual([])
    const [echo, silent, glob] = session.turnIds[0]!
    expect(textOf(session.resultsFor(echo!)[0]!.content)).toBe('one')
    expect(textOf(session.resultsFor(silent!)[0]!.content).trim()).not.toBe('')
    expect(session.resultsFor(glob!)[0]!.isError).toBe(false)
    expect(textOf(session.resultsFor(session.turnIds[2]![0]!)[0]!.content)).toContain('hello')
    const work = double.workFor(session.id)
    await double.waitForWork(work.id, (item) => item.state === 'stopped')
  })

  it('runs an ask only after its allow; a denied one never runs and gets no result from us', async () => {
    const server = await startWorker()
    const session = double.openSession(environment.id, {
      turns: [
        [
          { name: 'bash', input: { command: 'echo allowed > allowed.txt' }, permission: 'ask' },
          { name: 'bash', input: { command: 'echo denied > denied.txt' }, permission: 'ask' },
        ],
      ],
    })
    const [allowed, denied] = session.turnIds[0]!
    await session.waitForEvent((event) => event.type === 'session.status_idle')
    session.confirm(denied!, 'deny', 'not today')
    session.confirm(allowed!, 'allow')
    await session.waitForEnd()
    expect(session.resultsFor(allowed!)).toHaveLength(1)
    expect(session.resultsFor(denied!)).toHaveLength(0)
    expect(session.refusedResults()).toEqual([])
    const { existsSync } = await import('node:fs')
    const { join } = await import('node:path')
    expect(existsSync(join(server.config.workspace, 'allowed.txt'))).toBe(true)
    expect(existsSync(join(server.config.workspace, 'denied.txt'))).toBe(false)
  })
})

describe('the key from the secret store', () => {
  it('reads a secret reference when polling starts, and serves with it', async () => {
    const { buildTestApp } = await import('../helpers/build-test-app.js')
    const { app } = await buildTestApp({
      env: {
        TOOLEXEC_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
        TOOLEXEC_MANAGED_AGENTS_ENVIRONMENT: environment.id,
        TOOLEXEC_MANAGED_AGENTS_KEY: `\${secret:MA_ENVIRONMENT_KEY}`,
        TOOLEXEC_MANAGED_AGENTS_BASE_URL: double.baseURL,
        TOOLEXEC_MANAGED_AGENTS_POLL_INTERVAL_MS: '20',
      },
    })
    await app.secrets.write('MA_ENVIRONMENT_KEY', environment.key, 'test')
    await app.listen({ host: '127.0.0.1', port: 0 })
    const session = double.openSession(environment.id, { turns: [[{ name: 'bash', input: { command: 'echo ok' } }]] })
    await session.waitForEnd()
    expect(textOf(session.resultsFor(session.turnIds[0]![0]!)[0]!.content)).toBe('ok')
  })
})

describe('our rules on top', () => {
  it("an operator's deny wins over the session's allow, as an error result with the denial", async () => {
    const server = await startWorker({}, { permissions: { deny: ['Bash(rm:*)'] } })
    const session = double.openSession(environment.id, {
      turns: [[{ name: 'bash', input: { command: 'touch kept && rm kept' } }]],
    })
    const [call] = session.turnIds[0]!
    await session.waitForEnd()
    const [result] = session.resultsFor(call!)
    expect(result!.isError).toBe(true)
    expect(textOf(result!.content)).toContain('denied')
    const { existsSync } = await import('node:fs')
    expect(existsSync(`${server.config.workspace}/kept`)).toBe(false)
  })
})

describe('interrupts, leases and redelivery', () => {
  const started = (server: Awaited<ReturnType<typeof startWorker>>, count = 1) =>
    new Promise<void>((resolve) => {
      let seen = 0
      const stop = server.app.runManager.onEvent((event) => {
        if (event.type !== 'tool.started') return
        seen += 1
        if (seen < count) return
        stop()
        resolve()
      })
    })

  it('an interrupt cancels the running call with the honest text and nothing runs again', async () => {
    const server = await startWorker()
    const running = started(server)
    const session = double.openSession(environment.id, {
      turns: [[{ name: 'bash', input: { command: 'sleep 30' } }]],
    })
    await running
    session.interrupt()
    const [call] = session.turnIds[0]!
    await session.waitForResult(call!)
    const [result] = session.resultsFor(call!)
    expect(result!.isError).toBe(true)
    expect(textOf(result!.content)).toMatch(/aborted|doesn't want/)
    expect(session.resultsFor(call!)).toHaveLength(1)
    expect(session.refusedResults()).toEqual([])
  })

  it('answers healthchecks: acknowledged, then stopped; /readyz and /metrics show the worker', async () => {
    const server = await startWorker()
    const item = double.enqueueHealthcheck(environment.id)
    const done = await double.waitForWork(item.id, (work) => work.state === 'stopped')
    expect(done.acknowledgedAt).not.toBeNull()
    const ready = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as { managed_agents?: unknown }
    expect(ready.managed_agents).toEqual({ sessions: 0, stalled: [], leases_lost: 0 })
    const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text()
    expect(metrics).toMatch(/^toolexec_managed_agents_sessions\{state="stalled"\} 0$/m)
    expect(metrics).toMatch(/^toolexec_managed_agents_leases_lost_total 0$/m)
  })

  it('a stop request ends the claim: the running call gets the shutdown text and the item is stopped', async () => {
    double = await restartDouble(2)
    const server = await startWorker()
    const running = started(server)
    const session = double.openSession(environment.id, {
      turns: [[{ name: 'bash', input: { command: 'sleep 30' } }]],
    })
    await running
    const work = double.workFor(session.id)
    double.requestStop(work.id)
    await double.waitForWork(work.id, (item) => item.state === 'stopped')
    const [call] = session.turnIds[0]!
    await session.waitForResult(call!)
    expect(textOf(session.resultsFor(call!)[0]!.content)).toContain('shut down')
  })

  it('a lost answer to a heartbeat does not lose the lease (anthropic-sdk-python#1779)', async () => {
    double = await restartDouble(2)
    const server = await startWorker()
    const running = started(server)
    const session = double.openSession(environment.id, {
      turns: [[{ name: 'bash', input: { command: 'sleep 3; echo done' } }]],
    })
    await running
    const work = double.workFor(session.id)
    double.loseHeartbeatResponses(work.id)
    const [call] = session.turnIds[0]!
    await session.waitForResult(call!)
    expect(textOf(session.resultsFor(call!)[0]!.content)).toBe('done')
    expect(double.work(work.id).deliveries).toBe(1)
  })

  it('a lease lost mid-call: the item is redelivered, settled calls are not run again, the cut one is reported', async () => {
    double = await restartDouble(2)
    const server = await startWorker()
    const session = double.openSession(environment.id, {
      turns: [
        [{ name: 'bash', input: { command: 'echo first >> log.txt' } }],
        [{ name: 'bash', input: { command: 'echo second >> log.txt; sleep 30' } }],
      ],
    })
    const [first] = session.turnIds[0]!
    await session.waitForResult(first!)
    const running = started(server)
    await session.waitForEvent(() => session.turnIds.length === 2)
    await running
    // `tool.started` comes before bash has run `echo second`: the lease is cut once the log shows it,
    // so the assertion below does not race the command on a loaded host.
    const { readFile } = await import('node:fs/promises')
    const { join } = await import('node:path')
    const log = join(server.config.workspace, 'log.txt')
    await vi.waitFor(async () => expect(await readFile(log, 'utf8')).toBe('first\nsecond\n'), REAL_PROCESS_WAIT)
    const work = double.workFor(session.id)
    double.expireLease(work.id)
    const [second] = session.turnIds[1]!
    await session.waitForResult(second!)
    const [result] = session.resultsFor(second!)
    expect(result!.isError).toBe(true)
    expect(textOf(result!.content)).toContain('may have had partial effects')
    expect(session.resultsFor(first!)).toHaveLength(1)
    // Not run again on redelivery.
    expect(await readFile(log, 'utf8')).toBe('first\nsecond\n')
    expect(double.work(work.id).deliveries).toBe(2)
  })
})

describe('events read again', () => {
  it('a cut event stream: the worker reconnects, reads the history and runs nothing twice', async () => {
    const server = await startWorker()
    let starts = 0
    server.app.runManager.onEvent((event) => {
      if (event.type === 'tool.started') starts += 1
    })
    const running = new Promise<void>((resolve) => {
      const stop = server.app.runManager.onEvent((event) => {
        if (event.type !== 'tool.started') return
        stop()
        resolve()
      })
    })
    const session = double.openSession(environment.id, {
      turns: [
        [{ name: 'bash', input: { command: 'sleep 1; echo one' } }],
        [{ name: 'bash', input: { command: 'echo two' } }],
      ],
    })
    await running
    expect(double.dropStreams(session.id)).toBeGreaterThan(0)
    await session.waitForEnd()
    for (const id of session.turnIds.flat()) expect(session.resultsFor(id)).toHaveLength(1)
    expect(starts).toBe(2)
  })

  it('a call an interrupt cut before the worker attached is never run', async () => {
    const session = double.openSession(environment.id, {
      turns: [[{ name: 'bash', input: { command: 'touch ran' } }]],
      end: 'end_turn',
    })
    session.interrupt()
    const server = await startWorker()
    const [call] = session.turnIds[0]!
    await session.waitForResult(call!)
    const [result] = session.resultsFor(call!)
    expect(result!.isError).toBe(true)
    expect(textOf(result!.content)).toContain("doesn't want")
    const { existsSync } = await import('node:fs')
    expect(existsSync(`${server.config.workspace}/ran`)).toBe(false)
    session.terminate()
  })

  it('a session left waiting on a call of ours with none running shows as stalled in /readyz and the runs list', async () => {
    const server = await startWorker()
    const session = double.openSession(environment.id, { turns: [[{ name: 'RefusedImage', input: {} }]] })
    const [call] = session.turnIds[0]!
    // The API refuses the result, so the session waits on a call nothing here runs any more.
    await session.waitForEvent((event) => event.type === 'session.status_idle')
    const stalledRuns = async () => {
      const page = (await (await fetch(`${server.baseUrl}/v1/runs?stalled=true`)).json()) as {
        runs: Array<{ run_id: string; stalled_since?: string }>
      }
      return page.runs
    }
    let runs = await stalledRuns()
    while (runs.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      runs = await stalledRuns()
    }
    expect(session.refusedResults().map((attempt) => attempt.toolUseId)).toEqual([call])
    expect(Date.parse(runs[0]!.stalled_since!)).not.toBeNaN()
    const ready = (await (await fetch(`${server.baseUrl}/readyz`)).json()) as {
      managed_agents: { stalled: Array<{ session_id: string }> }
    }
    expect(ready.managed_agents.stalled.map((entry) => entry.session_id)).toEqual([session.id])
    const others = (await (await fetch(`${server.baseUrl}/v1/runs?stalled=false`)).json()) as { runs: unknown[] }
    expect(others.runs).toEqual([])
  }, 30_000)
})

async function restartDouble(leaseTtlSeconds: number) {
  await double.close()
  // Leases lapse only when a test lapses them (expireLease): a slow host never does it for the test.
  const fresh = await startManagedAgentsDouble({ leaseTtlSeconds, leasesLapse: false })
  environment = fresh.createEnvironment()
  return fresh
}
