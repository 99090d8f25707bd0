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
const rssBefore = rssOf(server)

// The flood, in a process of its own: its event loop never delays the probes' timings.
const floodNice = Number(values['flood-nice'])
const flood = spawn(
  floodNice === 0 ? process.execPath : 'nice',
  [
    ...(floodNice === 0 ? [] : ['-n', String(floodNice), process.execPath]),
    '--import',
    'tsx',
    'bench/connection-flood.ts',
    '--flood-port',
    String(port),
    '--sockets',
    String(sockets),
    '--reconnect-ms',
    values['reconnect-ms'],
  ],
  {
    cwd: REPOSITORY,
    stdio: ['ignore', 'pipe', 'inherit'],
  },
)
let floodReport = ''
flood.stdout?.on('data', (chunk) => {
  floodReport += chunk
})
await delay(2000)

// The other address: fresh connections (no keep-alive) for /healthz, and Bash runs.
const healthz: number[] = []
let bashOk = 0
let bashTotal = 0
const until = Date.now() + seconds * 1000
while (Date.now() < until) {
  const started = performance.now()
  const ok = await fetch(`${base}/healthz`, { headers: { connection: 'close' } }).then(
    (response) => response.ok,
    () => false,
  )
  healthz.push(ok ? performance.now() - started : Number.POSITIVE_INFINITY)
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
  await delay(200)
}
const rssDuring = rssOf(server)
const metrics = await (await fetch(`${base}/metrics`)).text()
flood.kill('SIGTERM')
await new Promise((resolve) => flood.once('close', resolve))
await delay(2000)
const rssAfter = rssOf(server)
server.kill('SIGTERM')
await new Promise((resolve) => server.once('close', resolve))
rmSync(scratch, { recursive: true, force: true })

const sorted = [...healthz].sort((a, b) => a - b)
const refused = [...metrics.matchAll(/toolexec_connections_refused_total\{reason="(\w+)"\} (\d+)/g)].map(
  ([, reason, count]) => `${reason} ${count}`,
)
console.log(
  JSON.stringify(
    {
      cpu: os.cpus()[0]?.model,
      node: process.version,
      floodSockets: sockets,
      serverOpenFilesLimit: Number(values['server-limit']),
      reconnectMs: Number(values['reconnect-ms']),
      floodNice,
      connectionAttempts: Number(floodReport.trim() || 0),
      healthz: {
        probes: healthz.length,
        failed: healthz.filter((ms) => ms === Number.POSITIVE_INFINITY).length,
        p50Ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0),
        maxMs: Math.round(sorted.at(-1) ?? 0),
      },
      bashRuns: { ok: bashOk, total: bashTotal },
      emfileLines: log.split('\n').filter((line) => line.includes('EMFILE')).length,
      rssMB: {
        before: Math.round(rssBefore / MB),
        during: Math.round(rssDuring / MB),
        after: Math.round(rssAfter / MB),
      },
      refused,
    },
    null,
    2,
  ),
)
