/**
 * What Redis costs a run: the 10-call no-op POST /v1/runs against one service process in memory
 * mode and one on Redis, in the same run, each in its own process. Prints requests/s of both,
 * the ratio (goal >= 0.5, docs/operations.md) and the Redis round trips per run, counted with
 * MONITOR over sequential runs (commands a script runs inside Redis are not round trips).
 *
 *   npx tsx bench/redis-overhead.ts [--duration 5] [--connections 10]
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import { Redis } from 'ioredis'
import { startRedisServer } from '../test/helpers/redis-server.js'

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' } },
})
const duration = Number(values.duration)
const connections = Number(values.connections)
const SEQUENTIAL_RUNS = 20

const payload = JSON.stringify({
  tool_uses: Array.from({ length: 10 }, (_unused, index) => ({
    type: 'tool_use',
    id: `toolu_${index}`,
    name: 'Noop',
    input: {},
  })),
})

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

async function startService(scratch: string, extra: Record<string, string>) {
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/noop-server.ts'], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      TOOLEXEC_WORKSPACE: path.join(scratch, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(scratch, 'blobs'),
      TOOLEXEC_SANDBOX: 'off',
      LOG_LEVEL: 'silent',
      ...extra,
    },
    stdio: 'inherit',
  })
  const url = `http://127.0.0.1:${port}/v1/runs`
  for (let attempt = 0; ; attempt++) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.ok,
      () => false,
    )
    if (up) break
    if (attempt > 300) throw new Error('the service did not start')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return { url, stop: () => child.kill('SIGTERM') }
}

async function measure(url: string) {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: payload,
    connections,
    duration,
  })
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`)
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

/** Client commands Redis received during `work` (MONITOR lines not issued by a script). */
async function roundTrips(redisUrl: string, work: () => Promise<void>): Promise<number> {
  const client = new Redis(redisUrl)
  const monitor = await client.monitor()
  // ioredis can trip over MONITOR's stream of replies; the count so far stays valid.
  monitor.on('error', () => undefined)
  let count = 0
  monitor.on('monitor', (_time: string, _args: string[], source: string) => {
    if (source !== 'lua') count++
  })
  await work()
  await new Promise((resolve) => setTimeout(resolve, 200))
  monitor.disconnect()
  client.disconnect()
  return count
}

const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-redis-'))
const redis = await startRedisServer({ appendOnly: true })
const memory = await startService(path.join(scratch, 'memory'), {})
const onRedis = await startService(path.join(scratch, 'redis'), { TOOLEXEC_REDIS_URL: redis.url })
try {
  console.log(`autocannon: ${connections} connections, ${duration} s per measurement, 10 no-op calls per run\n`)
  const inMemory = await measure(memory.url)
  const withRedis = await measure(onRedis.url)
  console.log('mode        req/s   p50 ms   p99 ms')
  for (const [name, stats] of [
    ['memory', inMemory],
    ['redis', withRedis],
  ] as const) {
    console.log(
      `${name.padEnd(8)} ${stats.requestsPerSecond.toFixed(0).padStart(8)} ${String(stats.p50).padStart(8)} ${String(stats.p99).padStart(8)}`,
    )
  }
  const ratio = withRedis.requestsPerSecond / inMemory.requestsPerSecond
  console.log(`\nratio redis/memory: ${ratio.toFixed(2)} (goal >= 0.5)`)
  const trips = await roundTrips(redis.url, async () => {
    for (let run = 0; run < SEQUENTIAL_RUNS; run++) {
      const response = await fetch(onRedis.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: payload,
      })
      if (response.status !== 200) throw new Error(`run answered ${response.status}`)
    }
  })
  console.log(
    `redis round trips per run: ${(trips / SEQUENTIAL_RUNS).toFixed(1)} (MONITOR over ${SEQUENTIAL_RUNS} runs, heartbeats included)`,
  )
} finally {
  memory.stop()
  onRedis.stop()
  // The service closes its connections on SIGTERM; give it a moment before Redis goes.
  await new Promise((resolve) => setTimeout(resolve, 1000))
  await redis.stop()
  await rm(scratch, { recursive: true, force: true })
}
