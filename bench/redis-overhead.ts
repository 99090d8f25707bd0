/**
 * What Redis costs a run: the 10-call no-op POST /v1/runs (the ToolSearch batch of
 * bench/http-runs.ts, docs/adr/0151-bench-no-op-is-tool-search.md) against one service process in
 * memory mode and one on Redis, both `node dist/server.js` in processes of their own, measured in
 * the same run. Reports requests/s of both, the ratio (goal >= 0.5, docs/operations.md) and the
 * Redis commands per run: client commands seen by MONITOR over sequential runs once the load's
 * runs have ended (EVALSHA counts once; what a script runs inside Redis is no round trip), lease
 * renewals of the service included.
 * Then where the CPU goes (docs/adr/0445-the-redis-ratio-is-bound-by-cpu-per-run.md): CPU time per
 * request of each service process and of redis-server over the same measurements (utime + stime
 * from /proc, Linux), and their ratio, memory-mode CPU per run / (Redis-mode service + redis-server
 * CPU per run): the throughput ratio if both had to share one core (with a core of its own,
 * redis-server's part runs beside the service and the ratio can go above it).
 *
 *   npx tsx bench/redis-overhead.ts [--duration 5] [--connections 50]
 */
import { once } from 'node:events'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { Redis } from 'ioredis'
import { redisKeys } from '../src/stores/redis/redis-keys.js'
import { startRedisServer } from '../test/helpers/redis-server.js'
import { load } from './lib/load.js'
import { noopBatch } from './lib/noop-batch.js'
import { emitFigures, type Figure, ratioFigure } from './lib/report.js'
import { startService } from './lib/server-process.js'

const SEQUENTIAL_RUNS = 50

/**
 * Waits until no run is open on Redis: autocannon stops at its duration with runs still in
 * flight, and the service finishes them (lease, session, record, events, audit, completion,
 * release). Counted by MONITOR, that tail added 3–6 commands to each of the 50 sequential runs
 * (docs/adr/0575-commands-per-run-counted-once-the-load-has-drained.md). The lease's release,
 * a run's last command, takes it off `runs:running`.
 */
async function drained(redisUrl: string): Promise<void> {
  const client = new Redis(redisUrl)
  try {
    const deadline = Date.now() + 30_000
    while ((await client.hlen(redisKeys.running)) > 0) {
      if (Date.now() > deadline) throw new Error('runs still open on Redis 30 s after the load')
      await delay(20)
    }
  } finally {
    client.disconnect()
  }
}

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

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux; 0 elsewhere). */
async function cpuMs(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime, in clock ticks of 10 ms (USER_HZ 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10
  } catch {
    return 0
  }
}

/** A load measurement with the CPU the named processes used during it, per request (ms). */
async function measured(options: Parameters<typeof load>[0], pids: readonly (number | undefined)[]) {
  const before = await Promise.all(pids.map(cpuMs))
  const figures = await load(options)
  const after = await Promise.all(pids.map(cpuMs))
  const requests = figures.requestsPerSecond * options.duration
  return { ...figures, cpuPerRequest: after.map((ms, index) => (ms - before[index]!) / requests) }
}

const ms3 = (value: number) => Math.round(value * 1000) / 1000

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
    const client = new Redis(redis.url)
    const redisPid = Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1])
    client.disconnect()
    const inMemory = await measured({ url: `${memory.url}/v1/runs`, body, connections, duration }, [memory.child.pid])
    const withRedis = await measured({ url: `${onRedis.url}/v1/runs`, body, connections, duration }, [
      onRedis.child.pid,
      Number.isFinite(redisPid) ? redisPid : undefined,
    ])
    const memoryCpu = inMemory.cpuPerRequest[0]!
    const [serviceCpu, redisServerCpu] = withRedis.cpuPerRequest as [number, number]
    await drained(redis.url)
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
      ratioFigure({
        name: `CPU per run on Redis (service + redis-server), 10 no-op calls, ${connections} connections`,
        unit: 'ms',
        value: ms3(serviceCpu + redisServerCpu),
        baselineName: 'service CPU per run, memory mode',
        baseline: ms3(memoryCpu),
        details: { serviceMs: ms3(serviceCpu), redisServerMs: ms3(redisServerCpu), memoryServiceMs: ms3(memoryCpu) },
      }),
      {
        name: 'Redis/memory ratio of CPU per run (memory-mode service CPU / Redis-mode service + redis-server CPU)',
        unit: '×',
        value: ms3(memoryCpu / (serviceCpu + redisServerCpu)),
      },
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
