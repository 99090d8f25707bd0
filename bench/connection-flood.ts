/**
 * The connection flood of docs/security.md#connections at full scale, against the service as
 * production starts it (`node dist/server.js`, its own process, its open-files limit lowered to
 * `--server-limit`): one address (127.0.0.2), from a process of its own, keeps `--sockets`
 * connections trying, each sending half a request line and a byte every 5 s, and reconnects
 * `--reconnect-ms` after one is closed (0: at once, a connection-rate flood). Meanwhile
 * another address (127.0.0.1) asks for a fresh /healthz and runs a Bash call, again and again.
 * Prints the /healthz latencies (goal: max under 100 ms), the Bash runs that succeeded (goal:
 * all), `EMFILE` lines in the server's log (goal: none), the server's RSS before and after
 * (goal: within 64 MB) and the refusals counted in /metrics.
 *
 * `--flood-nice N` runs the flood generator at that nice level: on a 2-core host the generator's
 * own CPU otherwise competes with the server's, which an attacker on another machine does not.
 *
 *   npx tsx bench/connection-flood.ts [--sockets 8000] [--server-limit 4096] [--seconds 20] [--reconnect-ms 1000] [--flood-nice 0]
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { buildOnce, REPOSITORY } from './lib/server-process.js'

const { values } = parseArgs({
  options: {
    sockets: { type: 'string', default: '8000' },
    'server-limit': { type: 'string', default: '4096' },
    seconds: { type: 'string', default: '20' },
    'reconnect-ms': { type: 'string', default: '1000' },
    'flood-port': { type: 'string' },
    'flood-nice': { type: 'string', default: '0' },
    'cpu-prof': { type: 'string' },
    'skip-floor': { type: 'boolean', default: false },
  },
})
const sockets = Number(values.sockets)
const seconds = Number(values.seconds)
const MB = 2 ** 20

if (values['flood-port'] !== undefined) {
  const port = Number(values['flood-port'])
  const reconnectMs = Number(values['reconnect-ms'])
  let opened = 0
  function floodOne(): void {
    const socket = connect({ host: '127.0.0.1', port, localAddress: '127.0.0.2' })
    opened += 1
    let drip: NodeJS.Timeout | undefined
    socket.on('connect', () => {
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: a')
      drip = setInterval(() => socket.write('a'), 5000)
    })
    socket.on('error', () => undefined)
    // Read (and drop) what comes back, so a server's close is seen when it comes, not at the next
    // drip: an unread socket noticed a close only when its write failed, up to 5 s later.
    socket.resume()
    socket.on('close', () => {
      clearInterval(drip)
      setTimeout(floodOne, reconnectMs)
    })
  }
  for (let index = 0; index < sockets; index++) floodOne()

  process.on('SIGTERM', () => {
    process.stdout.write(`${opened}\n`)
    process.exit(0)
  })
  await new Promise(() => undefined)
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address()
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

const rssOf = (child: ChildProcess) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024

/** CPU seconds a process has used (user and system; /proc ticks are 1/100 s on Linux). */
function cpuSecondsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

/** The flood generator, in a process of its own: its event loop never delays the probes' timings. */
function startFlood(target: number) {
  const floodNice = Number(values['flood-nice'])
  const child = spawn(
    floodNice === 0 ? process.execPath : 'nice',
    [
      ...(floodNice === 0 ? [] : ['-n', String(floodNice), process.execPath]),
      '--import',
      'tsx',
      'bench/connection-flood.ts',
      '--flood-port',
      String(target),
      '--sockets',
      String(sockets),
      '--reconnect-ms',
      values['reconnect-ms'],
    ],
    { cwd: REPOSITORY, stdio: ['ignore', 'pipe', 'inherit'] },
  )
  let report = ''
  child.stdout?.on('data', (chunk) => {
    report += chunk
  })
  return {
    cpuSeconds: () => cpuSecondsOf(child.pid),
    /** Stops the flood; answers its connection attempts. */
    async stop(): Promise<number> {
      child.kill('SIGTERM')
      await new Promise((resolve) => child.once('close', resolve))
      return Number(report.trim() || 0)
    },
  }
}

/**
 * From the other address, for `seconds`: a fresh /healthz (no keep-alive) and a Bash run, again
 * and again; `during` is called between probes (RSS samples).
 */
async function probe(base: string, during: () => void) {
  const healthz: Array<{ atS: number; ms: number }> = []
  let bashOk = 0
  let bashTotal = 0
  const start = performance.now()
  const until = Date.now() + seconds * 1000
  while (Date.now() < until) {
    const started = performance.now()
    const ok = await fetch(`${base}/healthz`, { headers: { connection: 'close' } }).then(
      (response) => response.ok,
      () => false,
    )
    healthz.push({
      atS: Math.round((started - start) / 100) / 10,
      ms: ok ? performance.now() - started : Number.POSITIVE_INFINITY,
    })
    bashTotal += 1
    const run = await fetch(`${base}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ tool_uses: [{ type: 'tool_use', id: 't', name: 'Bash', input: { command: 'echo ok' } }] }),
    }).then(
      (response) => response.json() as Promise<{ results?: Array<{ content: string }> }>,
      () => undefined,
    )
    if (run?.results?.[0]?.content === 'ok') bashOk += 1
    during()
    await delay(200)
  }
  const sorted = healthz.map(({ ms }) => ms).sort((a, b) => a - b)
  const at = (share: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? 0)
  return {
    healthz: {
      probes: healthz.length,
      failed: healthz.filter(({ ms }) => ms === Number.POSITIVE_INFINITY).length,
      p50Ms: at(0.5),
      p99Ms: at(0.99),
      maxMs: Math.round(sorted.at(-1) ?? 0),
      // When the slow ones came (seconds into the probing): a burst of the flood, or a pause of the server.
      over50Ms: healthz.filter(({ ms }) => ms > 50).map(({ atS, ms }) => `${atS}s:${Math.round(ms)}ms`),
    },
    bashRuns: { ok: bashOk, total: bashTotal },
  }
}

buildOnce()
const scratch = mkdtempSync(path.join(os.tmpdir(), 'toolexec-flood-'))
const port = await freePort()
const server = spawn(
  'bash',
  [
    '-c',
    `ulimit -n ${values['server-limit']} && exec "${process.execPath}" ${values['cpu-prof'] === undefined ? '' : `--cpu-prof --cpu-prof-dir "${values['cpu-prof']}"`} dist/server.js`,
  ],
  {
    cwd: REPOSITORY,
    env: {
      ...process.env,
      PORT: String(port),
      TOOLEXEC_WORKSPACE: path.join(scratch, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(scratch, 'blobs'),
      TOOLEXEC_MEMORY_DIR: path.join(scratch, 'memory'),
      TOOLEXEC_SANDBOX: 'off',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  },
)
let log = ''
server.stdout?.on('data', (chunk) => {
  log += chunk
})
server.stderr?.on('data', (chunk) => {
  log += chunk
})
const base = `http://127.0.0.1:${port}`
for (let tries = 0; ; tries++) {
  if (
    await fetch(`${base}/healthz`).then(
      (response) => response.ok,
      () => false,
    )
  )
    break
  if (tries > 300) throw new Error(`the server did not start:\n${log}`)
  await delay(100)
}
await delay(1000)

// The floor: the same probes against the idle server while the same flood runs against a port
// nobody listens on, so the host carries the generator's CPU and the kernel's connection work but
// the server refuses nothing (docs/adr/0321-the-flood-bench-reports-its-floor.md).
let floor: (Awaited<ReturnType<typeof probe>> & { connectionAttempts: number; generatorCpuSeconds: number }) | undefined
if (!values['skip-floor']) {
  const generator = startFlood(await freePort())
  await delay(2000)
  const probed = await probe(base, () => undefined)
  const generatorCpuSeconds = generator.cpuSeconds()
  floor = { connectionAttempts: await generator.stop(), generatorCpuSeconds, ...probed }
  await delay(2000)
}

/** The server's V8 heap (allocated, not only used), from its own /metrics: what of the RSS is JavaScript's. */
const heapOf = (metrics: string) => Number(/^nodejs_heap_size_total_bytes (\d+)/m.exec(metrics)?.[1] ?? Number.NaN)
const heapBefore = heapOf(await (await fetch(`${base}/metrics`)).text())
const rssBefore = rssOf(server)
let rssPeak = rssBefore
const serverCpuBefore = cpuSecondsOf(server.pid)
const generator = startFlood(port)
const floodStarted = performance.now()
await delay(2000)
const flooded = await probe(base, () => {
  rssPeak = Math.max(rssPeak, rssOf(server))
})
const metrics = await (await fetch(`${base}/metrics`)).text()
// CPU over the whole flood (its first burst included): the server's share says whether it or the host limits.
const serverCpuSeconds = cpuSecondsOf(server.pid) - serverCpuBefore
const generatorCpuSeconds = generator.cpuSeconds()
const floodSeconds = Math.round((performance.now() - floodStarted) / 100) / 10
const connectionAttempts = await generator.stop()
await delay(2000)
const rssAfter = rssOf(server)
server.kill('SIGTERM')
await new Promise((resolve) => server.once('close', resolve))
rmSync(scratch, { recursive: true, force: true })

const refused = [...metrics.matchAll(/toolexec_connections_refused_total\{reason="(\w+)"\} (\d+)/g)].map(
  ([, reason, count]) => `${reason} ${count}`,
)
const toMB = (bytes: number) => Math.round(bytes / MB)
console.log(
  JSON.stringify(
    {
      cpu: os.cpus()[0]?.model,
      cores: os.cpus().length,
      node: process.version,
      floodSockets: sockets,
      serverOpenFilesLimit: Number(values['server-limit']),
      reconnectMs: Number(values['reconnect-ms']),
      floodNice: Number(values['flood-nice']),
      floor,
      flood: {
        connectionAttempts,
        seconds: floodSeconds,
        serverCpuSeconds: Math.round(serverCpuSeconds * 100) / 100,
        generatorCpuSeconds: Math.round(generatorCpuSeconds * 100) / 100,
        ...flooded,
        emfileLines: log.split('\n').filter((line) => line.includes('EMFILE')).length,
        rssMB: {
          before: toMB(rssBefore),
          peak: toMB(rssPeak),
          after: toMB(rssAfter),
          peakGrowth: toMB(rssPeak - rssBefore),
        },
        heapMB: { before: toMB(heapBefore), end: toMB(heapOf(metrics)) },
        refused,
      },
      goals: {
        healthzMaxUnder100Ms: flooded.healthz.maxMs < 100 && flooded.healthz.failed === 0,
        bashAllSucceeded: flooded.bashRuns.ok === flooded.bashRuns.total,
        noEmfile: !log.includes('EMFILE'),
        rssWithin64MB: rssPeak - rssBefore <= 64 * MB && rssAfter - rssBefore <= 64 * MB,
      },
    },
    null,
    2,
  ),
)
