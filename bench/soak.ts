/**
 * RSS over a soak of runs without a session_id against `node dist/server.js`: 10 connections
 * post 10-call no-op batches for `--seconds` (600 for the real figure; `npm run bench` uses a
 * shorter soak by default, and says so in the report). Retention is bounded small (500 runs,
 * swept every second) so the warm-up reaches the steady state a default server reaches after
 * 10,000 runs (at least 20 s of warm-up). RSS is read from /proc after the warm-up and after the
 * soak, each time once the service has been idle for a few seconds: under load RSS swings by tens
 * of MB with the size V8 gives its heap (four 60 s soaks of the same build: -24, +37, +59 and +11 MB
 * at the end of the load, while the heap in use after a collection stayed at 30.5-30.8 MB over 60,000
 * runs), and an idle service compacts a heap a load grew (docs/adr/0162-compact-the-heap-when-idle-after-load.md).
 * What stays after the load is what leaks; flat means it grew less than 32 MB. The RSS under load
 * (median of the first and of the last tenth of the samples) is in the details.
 *
 *   npx tsx bench/soak.ts [--seconds 600]
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { load } from './lib/load.js'
import { noopBatch } from './lib/noop-batch.js'
import { emitFigures } from './lib/report.js'
import { startService } from './lib/server-process.js'

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '600' } } })
const seconds = Number(values.seconds)
const MB = 1024 * 1024
const FLAT_MB = 32
/** Long enough for the idle compaction (two idle seconds after load, checked every second). */
const SETTLE_MS = 5000
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN

const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-'))
const service = await startService(scratch, {
  TOOLEXEC_MAX_RETAINED_RUNS: '500',
  TOOLEXEC_SWEEP_INTERVAL_MS: '1000',
})
try {
  const body = noopBatch(10)
  const url = `${service.url}/v1/runs`
  await load({ url, body, connections: 10, duration: Math.max(20, seconds / 10) })
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const before = await service.rss()
  const samples: number[] = []
  const sampler = setInterval(() => {
    void service.rss().then((rss) => samples.push(rss))
  }, 1000)
  const figures = await load({ url, body, connections: 10, duration: seconds })
  clearInterval(sampler)
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS))
  const after = await service.rss()
  const tenth = Math.max(1, Math.floor(samples.length / 10))
  const growth = (after - before) / MB
  emitFigures([
    {
      name: `RSS growth over a ${seconds} s soak of runs without session_id (10 connections, 10-call batches), idle before and after`,
      unit: 'MB',
      value: Math.round(growth * 10) / 10,
      baselineName: 'RSS after warm-up (idle), MB',
      baseline: Math.round((before / MB) * 10) / 10,
      goal: { atMost: FLAT_MB },
      met: growth < FLAT_MB,
      details: {
        seconds,
        runs: Math.round(figures.requestsPerSecond * seconds),
        peakMb: Math.round(Math.max(before, after, ...samples) / MB),
        underLoadFirstTenthMb: Math.round(median(samples.slice(0, tenth)) / MB),
        underLoadLastTenthMb: Math.round(median(samples.slice(-tenth)) / MB),
      },
    },
  ])
} finally {
  await service.stop()
  await rm(scratch, { recursive: true, force: true })
}
