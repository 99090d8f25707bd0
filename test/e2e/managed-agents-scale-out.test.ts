// Pins Managed Agents worker mode under scale-out with real processes: two instances on one
// redis-server share an environment's queue; the one serving a session is SIGKILLed mid-call; the
// item is redelivered to the other, which runs the call that had not started, gives the
// "may have had partial effects" result for the one that was running, and never runs a call twice.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type ManagedAgentsDouble, startManagedAgentsDouble } from '../helpers/managed-agents/index.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'
import { type ServiceProcess, startServiceProcess } from '../helpers/service-process.js'

const textOf = (content: unknown) =>
  (content as Array<{ type: string; text?: string }>).map((block) => block.text ?? '').join('')

async function served(instance: ServiceProcess): Promise<number> {
  const body = (await (await fetch(`${instance.baseUrl}/readyz`)).json()) as { managed_agents?: { sessions: number } }
  return body.managed_agents?.sessions ?? 0
}

describe.skipIf(redisSkipReason !== undefined)('Managed Agents worker mode on two instances', () => {
  let redis: RedisServer
  let double: ManagedAgentsDouble
  let data: string
  const started: ServiceProcess[] = []

  beforeAll(async () => {
    redis = await startRedisServer()
    // Short leases: a killed holder's item is back in the queue within two seconds.
    double = await startManagedAgentsDouble({ leaseTtlSeconds: 2 })
    data = mkdtempSync(path.join(tmpdir(), 'toolexec-ma-scale-'))
  }, 30_000)

  afterAll(async () => {
    await Promise.all(started.map((instance) => instance.stop()))
    await double?.close()
    await redis?.stop()
    if (data) rmSync(data, { recursive: true, force: true })
  }, 30_000)

  it('answers every call exactly once across a SIGKILL of the instance serving the session', async () => {
    const environment = double.createEnvironment()
    const settings = {
      TOOLEXEC_REDIS_URL: redis.url,
      TOOLEXEC_WORKSPACE: path.join(data, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_SANDBOX: 'off',
      TOOLEXEC_INSTANCE_LEASE_MS: '1500',
      TOOLEXEC_MANAGED_AGENTS_ENVIRONMENT: environment.id,
      TOOLEXEC_MANAGED_AGENTS_KEY: environment.key,
      TOOLEXEC_MANAGED_AGENTS_BASE_URL: double.baseURL,
      TOOLEXEC_MANAGED_AGENTS_POLL_INTERVAL_MS: '50',
    }
    const first = await startServiceProcess(settings)
    started.push(first)
    started.push(await startServiceProcess(settings))
    const log = path.join(data, 'workspace', 'log.txt')
    const session = double.openSession(environment.id, {
      turns: [
        [
          { name: 'bash', input: { command: `echo one >> ${log}` } },
          // Writes run in series: when the second is running, the third has not started, on any host.
          { name: 'bash', input: { command: `echo two >> ${log}; sleep 30` } },
          { name: 'bash', input: { command: `echo three >> ${log}` } },
        ],
      ],
    })
    const [one, two, three] = session.turnIds[0]!
    await session.waitForResult(one!)
    // The second call is running once its line is in the log.
    while (!readFileSync(log, 'utf8').includes('two')) await new Promise((resolve) => setTimeout(resolve, 50))
    const holder = (await served(started[0]!)) === 1 ? started[0]! : started[1]!
    const survivor = holder === started[0] ? started[1]! : started[0]!
    holder.kill()
    await holder.exited
    await session.waitForEnd()
    for (const id of [one, two, three]) expect(session.resultsFor(id!)).toHaveLength(1)
    expect(session.refusedResults()).toEqual([])
    const cut = session.resultsFor(two!)[0]!
    expect(cut.isError).toBe(true)
    expect(textOf(cut.content)).toContain('may have had partial effects')
    expect(session.resultsFor(three!)[0]!.isError).toBe(false)
    expect(readFileSync(log, 'utf8')).toBe('one\ntwo\nthree\n')
    const work = double.workFor(session.id)
    expect(work.deliveries).toBe(2)
    // The survivor gives the item back stopped once the session has left it.
    await double.waitForWork(work.id, (item) => item.state === 'stopped')
    expect(await served(survivor)).toBe(0)
  }, 60_000)
})
