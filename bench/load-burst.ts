/**
 * Load and burst against the service as production starts it (`node dist/server.js` via
 * bench/lib/server-process.ts), with autocannon in a process of its own: a steady phase at half
 * the capacity, then a burst at 10× the capacity. Capacity is TOOLEXEC_MAX_OPEN_RUNS; each request
 * is one run of one Bash call. Reports latency p50/p99, the share of 429/503 answers, /healthz
 * latency during the burst (goal p99 < 100 ms) with its floor (the same probes against the idle
 * server, before the steady phase) and the server's RSS before, at peak and after
 * (goal: back within 10% of the start), both read once the service's idle compaction has run after a
 * stretch of load (docs/adr/0518-the-load-burst-reads-rss-in-one-state.md), to $BENCH_JSON when the suite runner asks
 * (bench/run-all.ts; docs/reliability.md cites a run).
 *
 *   npx tsx bench/load-burst.ts [--capacity 32] [--duration 5] [--settle 5] [--command "sleep 0.2"] [--profile DIR]
 *
 * `--profile DIR` starts the server with `--cpu-prof` (the profile is written when it stops).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { parseArgs } from 'node:util'
import { waitForCompaction, watchHeap } from './lib/idle-compaction.js'
import { emitFigures, type Figure } from './lib/report.js'
import { REPOSITORY, startService } from './lib/server-process.js'

const { values } = parseArgs({
  options: {
    capacity: { type: 'string', default: '32' },
    duration: { type: 'string', default: '5' },
    settle: { type: 'string', default: '5' },
    command: { type: 'string', default: 'sleep 0.2' },
    profile: { type: 'string' },
  },
})
const capacity = Number(values.capacity)
const duration = Number(values.duration)
const MB = 2 ** 20
/** Sequential runs of the idle floor: about 2.5 s of the bench with `sleep 0.2`. */
const FLOOR_SAMPLES = 10
const round = (value: number) => Math.round(value * 1000) / 1000

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number)

type CannonResult = {
  requests: { total: number }
  latency: { p50: number; p99: number }
  statusCodeStats?: Record<string, { count: number }>
  errors: number
}

/** autocannon's CLI in its own process: the load generator never shares the probes' event loop. */
async function cannon(url: string, connections: number, body: string, seconds = duration): Promise<CannonResult> {
  const args = [path.join(REPOSITORY, 'node_modules/autocannon/autocannon.js'), '--json']
  args.push('-c', String(connections), '-d', String(seconds), '-m', 'POST')
  args.push('-H', 'content-type=application/json', '-b', body, url)
  const child = spawn(process.execPath, args, { cwd: REPOSITORY, stdio: ['ignore', 'pipe', 'ignore'] })
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
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    statusCodes: codes,
    share429: round((codes['429'] ?? 0) / total),
    share503: round((codes['503'] ?? 0) / total),
    connectionErrors: result.errors,
  }
}

/** GET /healthz every 20 ms until `until` resolves (or `count` probes); the latencies sorted, in ms. */
async function probeHealth(baseUrl: string, stop: { count?: number; until?: Promise<unknown> }): Promise<number[]> {
  let probing = true
  stop.until?.then(() => {
    probing = false
  })
  const latencies: number[] = []
  while (probing && (stop.count === undefined || latencies.length < stop.count)) {
    const started = performance.now()
    await fetch(`${baseUrl}/healthz`).then((response) => response.arrayBuffer())
    latencies.push(performance.now() - started)
    await delay(20)
  }
  return latencies.sort((a, b) => a - b)
}

const spread = (sorted: number[]) => ({
  probes: sorted.length,
  p50Ms: round(percentile(sorted, 50)),
  p99Ms: round(percentile(sorted, 99)),
  maxMs: round(sorted.at(-1) ?? 0),
})

async function loadBurst(): Promise<Figure[]> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-burst-'))
  const settings = path.join(scratch, 'settings.json')
  await writeFile(settings, JSON.stringify({ permissions: { allow: ['Bash'] } }))
  const profile = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(values.profile)}`] : []
  // The burst's connections stand for many clients but come from one address: past the per-address
  // cap (256) they were closed at accept and reconnected in a tight loop, a load
  // bench/connection-flood.ts measures on its own (docs/adr/0363-the-load-burst-is-not-a-connection-flood.md).
  const perPeer = String(capacity * 10 + 64)
  const service = await startService(
    scratch,
    {
      TOOLEXEC_SETTINGS: settings,
      TOOLEXEC_MAX_OPEN_RUNS: String(capacity),
      TOOLEXEC_MAX_CONNECTIONS_PER_PEER: perPeer,
    },
    profile,
  )
  try {
    const ready = (await (await fetch(`${service.url}/readyz`)).json()) as { bash_containment: string }
    const url = `${service.url}/v1/runs`
    const body = JSON.stringify({
      tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: values.command } }],
    })
    // Warm-up, so the baseline includes what any first request loads and compiles.
    const post = async () => {
      const started = performance.now()
      await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).arrayBuffer()
      return performance.now() - started
    }
    for (let index = 0; index < 20; index++) await post()
    // The floors of the latency figures, measured on the idle server of this run: the same run
    // from one client in flight (docs/adr/0382-load-burst-latencies-have-idle-floors.md), and the
    // same /healthz probes as during the burst.
    const alone: number[] = []
    for (let index = 0; index < FLOOR_SAMPLES; index++) alone.push(await post())
    alone.sort((a, b) => a - b)
    const aloneP99 = round(percentile(alone, 99))
    const idle = spread(await probeHealth(service.url, { count: 100 }))
    // Both RSS readings in the state the service settles in after load: its idle compaction done
    // (docs/adr/0518). Read right after the warm-up the heap was compacted in some runs and full of
    // garbage in most, so the ratio compared two different states.
    const stretchStarted = performance.now()
    const stretchHeap = watchHeap(service.url)
    const stretch = summary(await cannon(url, capacity * 10, body))
    const before = await waitForCompaction(service.url, await stretchHeap.stop(), stretchStarted)
    const rssBefore = await service.rss()
    let rssPeak = rssBefore
    const sampler = setInterval(() => {
      service.rss().then(
        (rss) => {
          rssPeak = Math.max(rssPeak, rss)
        },
        () => undefined,
      )
    }, 100)
    const loadHeap = watchHeap(service.url)
    const steadyConnections = Math.max(1, capacity / 2)
    const steady = summary(await cannon(url, steadyConnections, body))
    const burstDone = cannon(url, capacity * 10, body)
    const health = await probeHealth(service.url, { until: burstDone })
    const burst = summary(await burstDone)
    const burstEnded = performance.now()
    const loadWatched = await loadHeap.stop()
    await delay(Number(values.settle) * 1000)
    clearInterval(sampler)
    const rssAtSettle = await service.rss()
    // Returns at once when the compaction already ran; otherwise the reading waits for it (ADR 0518).
    const after = await waitForCompaction(service.url, loadWatched, burstEnded)
    const rssAfter = after.waitedS > Number(values.settle) ? await service.rss() : rssAtSettle
    const during = spread(health)
    const healthP99 = during.p99Ms
    const growth = rssAfter / rssBefore - 1
    const setup = {
      capacity,
      command: values.command,
      durationS: duration,
      bashContainment: ready.bash_containment,
      maxConnectionsPerPeer: Number(perPeer),
    }
    return [
      {
        name: `Run latency p99, steady ${steadyConnections} connections (capacity ${capacity} open runs, "${values.command}")`,
        unit: 'ms',
        value: steady.p99Ms,
        baselineName: 'the same run, one client in flight, idle server, p99 ms',
        baseline: aloneP99,
        details: { ...setup, ...steady, floor: { samples: alone.length, p50Ms: round(percentile(alone, 50)) } },
      },
      {
        name: `Run latency p99, burst ${capacity * 10} connections (10× capacity)`,
        unit: 'ms',
        value: burst.p99Ms,
        baselineName: 'the same run, one client in flight, idle server, p99 ms',
        baseline: aloneP99,
        details: { ...setup, ...burst },
      },
      {
        name: 'Share of burst answers refused with 429 or 503',
        unit: 'share',
        value: round(burst.share429 + burst.share503),
        details: { share429: burst.share429, share503: burst.share503 },
      },
      {
        name: 'GET /healthz p99 during the burst',
        unit: 'ms',
        value: healthP99,
        baselineName: 'the same probes against the idle server, p99 ms',
        baseline: idle.p99Ms,
        goal: { atMost: 100 },
        met: healthP99 < 100,
        details: { ...during, idle },
      },
      {
        name: `RSS ${values.settle} s after the burst vs before`,
        unit: 'MB',
        value: round(rssAfter / MB),
        baselineName: 'RSS before the steady phase, MB',
        baseline: round(rssBefore / MB),
        ratio: round(rssAfter / rssBefore),
        goal: { atMost: 1.1 },
        met: growth <= 0.1,
        details: {
          peakMb: round(rssPeak / MB),
          // Which state each reading is in, and how long after its load it was taken (ADR 0518).
          before: {
            ...before,
            loadedStretch: { seconds: duration, connections: capacity * 10, requests: stretch.requests },
          },
          after: { ...after, rssAtSettleMb: round(rssAtSettle / MB) },
        },
      },
    ]
  } finally {
    await service.stop()
    await rm(scratch, { recursive: true, force: true })
  }
}

emitFigures(await loadBurst())
