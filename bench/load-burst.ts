/**
 * Load and burst against the service as production starts it (`npm run build`, then `node dist/server.js`,
 * as the Dockerfile does), with autocannon in a process of its own: a steady phase at half the
 * capacity, then a burst at 10× the capacity. Capacity is TOOLEXEC_MAX_OPEN_RUNS; each request
 * is one run of one Bash call. Reports latency p50/p99, the share of 429/503 answers, /healthz
 * latency during the burst (goal p99 < 100 ms) and the server's RSS before, at peak and after
 * (goal: back within 10% of the start). Writes a JSON report to bench/results/ (gitignored:
 * figures depend on the machine; docs/reliability.md cites the run it reports).
 *
 *   npx tsx bench/load-burst.ts [--capacity 32] [--duration 5] [--command "sleep 0.2"] [--profile DIR]
 *
 * `--profile DIR` starts the server with `--cpu-prof` (the profile is written when it stops).
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { parseArgs } from 'node:util'

const { values } = parseArgs({
  options: {
    capacity: { type: 'string', default: '32' },
    duration: { type: 'string', default: '5' },
    command: { type: 'string', default: 'sleep 0.2' },
    profile: { type: 'string' },
  },
})
const capacity = Number(values.capacity)
const duration = Number(values.duration)
const root = path.resolve(import.meta.dirname, '..')

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise((resolve) => server.close(resolve))
  return typeof address === 'object' && address ? address.port : 0
}

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024
}

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number)

type CannonResult = {
  requests: { total: number }
  latency: { p50: number; p99: number }
  statusCodeStats?: Record<string, { count: number }>
  errors: number
}

/** autocannon's CLI in its own process: the load generator never shares our event loop. */
async function cannon(url: string, connections: number, body: string): Promise<CannonResult> {
  const args = ['autocannon', '--json', '-c', String(connections), '-d', String(duration), '-m', 'POST']
  args.push('-H', 'content-type=application/json', '-b', body, url)
  const child = spawn('npx', args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString()
  })
  await new Promise((resolve) => child.once('close', resolve))
  return JSON.parse(out) as CannonResult
}

function summary(result: CannonResult) {
  const codes = Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count]))
  const total = Object.values(codes).reduce((sum, count) => sum + count, 0) || 1
  return {
    requests: result.requests.total,
    latency_ms: { p50: result.latency.p50, p99: result.latency.p99 },
    status_codes: codes,
    share_429: (codes['429'] ?? 0) / total,
    share_503: (codes['503'] ?? 0) / total,
    connection_errors: result.errors,
  }
}

async function main() {
  const data = await mkdtemp(path.join(tmpdir(), 'toolexec-burst-'))
  const settings = path.join(data, 'settings.json')
  await writeFile(settings, JSON.stringify({ permissions: { allow: ['Bash'] } }))
  const port = await freePort()
  const base = `http://127.0.0.1:${port}`
  const profile = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values.profile)}`] : []
  // Production runs the compiled JavaScript (docs/operations.md), so the bench does too.
  execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' })
  const server = spawn('node', [...profile, 'dist/server.js'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      TOOLEXEC_WORKSPACE: path.join(data, 'workspace'),
      TOOLEXEC_BLOB_DIR: path.join(data, 'blobs'),
      TOOLEXEC_SETTINGS: settings,
      TOOLEXEC_MAX_OPEN_RUNS: String(capacity),
    },
  })
  try {
    for (let attempt = 0; ; attempt++) {
      if (
        await fetch(`${base}/readyz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break
      if (attempt > 200) throw new Error('the server did not become ready')
      await delay(100)
    }
    const ready = (await (await fetch(`${base}/readyz`)).json()) as { bash_containment: string }
    const pid = server.pid as number
    const body = JSON.stringify({
      tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: values.command } }],
    })
    // Warm-up, so the baseline includes what any first request loads and compiles.
    for (let index = 0; index < 20; index++) {
      await fetch(`${base}/v1/runs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    }
    const rssBefore = await rssOf(pid)
    let rssPeak = rssBefore
    const sampler = setInterval(() => {
      rssOf(pid).then(
        (rss) => {
          rssPeak = Math.max(rssPeak, rss)
        },
        () => undefined,
      )
    }, 100)

    const steady = await cannon(`${base}/v1/runs`, Math.max(1, capacity / 2), body)
    const health: number[] = []
    let probing = true
    const prober = (async () => {
      while (probing) {
        const started = performance.now()
        await fetch(`${base}/healthz`).then((r) => r.arrayBuffer())
        health.push(performance.now() - started)
        await delay(20)
      }
    })()
    const burst = await cannon(`${base}/v1/runs`, capacity * 10, body)
    probing = false
    await prober
    await delay(5_000)
    clearInterval(sampler)
    const rssAfter = await rssOf(pid)
    health.sort((a, b) => a - b)
    const report = {
      date: new Date().toISOString(),
      started_as: 'node dist/server.js',
      bash_containment: ready.bash_containment,
      capacity_open_runs: capacity,
      command: values.command,
      duration_s: duration,
      steady: { connections: Math.max(1, capacity / 2), ...summary(steady) },
      burst: { connections: capacity * 10, ...summary(burst) },
      healthz_during_burst_ms: {
        probes: health.length,
        p50: percentile(health, 50),
        p99: percentile(health, 99),
        max: health.at(-1) ?? 0,
      },
      rss_mb: {
        before: rssBefore / 2 ** 20,
        peak: rssPeak / 2 ** 20,
        after: rssAfter / 2 ** 20,
        after_vs_before: rssAfter / rssBefore - 1,
      },
    }
    await mkdir(path.join(root, 'bench/results'), { recursive: true })
    const file = path.join(root, 'bench/results', `load-burst-${report.date.replaceAll(':', '-')}.json`)
    await writeFile(file, `${JSON.stringify(report, null, 2)}\n`)
    console.log(JSON.stringify(report, null, 2))
    console.log(`written to ${path.relative(root, file)}`)
  } finally {
    server.kill('SIGTERM')
    await new Promise((resolve) => server.once('close', resolve))
    await rm(data, { recursive: true, force: true })
  }
}

await main()
