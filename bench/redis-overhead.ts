/**
 * What Redis costs a run: the 10-call no-op POST /v1/runs (the ToolSearch batch of
 * bench/http-runs.ts, docs/adr/0151-bench-no-op-is-tool-search.md) against one service process in
 * memory mode and one on Redis, both `node dist/server.js` in processes of their own, measured in
 * the same run. Reports requests/s of both, the ratio (goal >= 0.5, docs/operations.md) and the
 * Redis commands per run: client commands seen by MONITOR over sequential runs (EVALSHA counts
 * once; what a script runs inside Redis is no round trip), lease renewals of the service included.
 *
 *   npx tsx bench/redis-overhead.ts [--duration 5] [--connections 50]
 */
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { startRedisServer } from '../test/helpers/redis-server.js'
import { load } from './lib/load.js'
import { noopBatch } from './lib/noop-batch.js'
import { emitFigures, type Figure, ratioFigure } from './lib/report.js'
import { startService } from './lib/server-process.js'

const SEQUENTIAL_RUNS = 50

/**
 * Commands clients sent to Redis over `runs` sequential runs, by name, from MONITOR on a plain
 * socket (ioredis's monitor mode trips over the stream). Lines whose source is `lua` are what a
 * script runs inside Redis, no round trip, so they are left out; EVALSHA counts once.
 */
async function commandsPerRun(redisPort: number, serviceUrl: string, body: string, runs: number) {
  const socket = connect(redisPort, '127.0.0.1')
  await once(socket, 'connect')
  const counts: Record<string, number> = {}
  let pending = ''
  socket.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8')
    const lines = pending.split('\r\n')
    pending = lines.pop() ?? ''
    for (const line of lines) {
      const match = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] "([^"]+)"/.exec(line)
      if (!match || match[1] === 'lua') continue
      const name = match[2]!.toLowerCase()
      counts[name] = (counts[name] ?? 0) + 1
    }
  })
  socket.write('MONITOR\r\n')
  try {
    for (let run = 0; run < runs; run++) {
      const response = await fetch(`${serviceUrl}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      })
      if (response.status !== 200) throw new Error(`run answered ${response.status}`)
      await response.arrayBuffer()
    }
    // The last run's trailing writes (expiry, lease release) reach MONITOR a moment later.
    await delay(200)
    return counts
  } finally {
    socket.destroy()
  }
}

export async function redisOverhead(duration: number, connections: number): Promise<Figure[]> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-redis-'))
  const redis = await startRedisServer({ appendOnly: true })
  const memory = await startService(path.join(scratch, 'memory'))
  const onRedis = await startService(path.join(scratch, 'redis'), { TOOLEXEC_REDIS_URL: redis.url })
  try {
    const body = noopBatch(10)
    // Warm both (JIT, pools, script cache) before measuring.
    await load({ url: `${memory.url}/v1/runs`, body, connections, duration: 1 })
    await load({ url: `${onRedis.url}/v1/runs`, body, connections, duration: 1 })
    const inMemory = await load({ url: `${memory.url}/v1/runs`, body, connections, duration })
    const withRedis = await load({ url: `${onRedis.url}/v1/runs`, body, connections, duration })
    const commands = await commandsPerRun(redis.port, onRedis.url, body, SEQUENTIAL_RUNS)
    const total = Object.values(commands).reduce((sum, calls) => sum + calls, 0)
    return [
      ratioFigure({
        name: `POST /v1/runs on Redis, 10 no-op calls, ${connections} connections`,
        unit: 'req/s',
        value: withRedis.requestsPerSecond,
        baselineName: 'same service in memory mode',
        baseline: inMemory.requestsPerSecond,
        goal: { atLeast: 0.5 },
        details: {
          p50Ms: withRedis.p50,
          p99Ms: withRedis.p99,
          baselineP50Ms: inMemory.p50,
          baselineP99Ms: inMemory.p99,
        },
      }),
      {
        name: 'Redis commands per run, 10 no-op calls (client commands seen by MONITOR over sequential runs)',
        unit: 'commands',
        value: Math.round((total / SEQUENTIAL_RUNS) * 10) / 10,
        details: {
          runs: SEQUENTIAL_RUNS,
          perRun: Object.fromEntries(
            Object.entries(commands).map(([name, calls]) => [name, Math.round((calls / SEQUENTIAL_RUNS) * 10) / 10]),
          ),
        },
      },
    ]
  } finally {
    await memory.stop()
    await onRedis.stop()
    await redis.stop()
    await rm(scratch, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' } },
  })
  emitFigures(await redisOverhead(Number(values.duration), Number(values.connections)))
}
