/**
 * RSS over a soak of runs without a session_id against `node dist/server.js`: 10 connections
 * post 10-call no-op batches for `--seconds` (600 for the real figure; `npm run bench` uses a
 * shorter soak by default, and says so in the report). Retention is bounded small (500 runs,
 * swept every second) so the warm-up reaches the steady state a default server reaches after
 * 10,000 runs (at least 20 s of warm-up); RSS is read from /proc after the warm-up and at the end; flat means it grew less
 * than 32 MB.
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

const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-'))
const service = await startService(scratch, {
  TOOLEXEC_MAX_RETAINED_RUNS: '500',
  TOOLEXEC_SWEEP_INTERVAL_MS: '1000',
})
try {
  const body = noopBatch(10)
  const url = `${service.url}/v1/runs`
  await load({ url, body, connections: 10, duration: Math.max(20, seconds / 10) })
  const before = await service.rss()
  const samples: number[] = []
  const sampler = setInterval(() => {
    void service.rss().then((rss) => samples.push(rss))
  }, 1000)
  const figures = await load({ url, body, connections: 10, duration: seconds })
  clearInterval(sampler)
  const after = await service.rss()
  const growth = (after - before) / MB
  emitFigures([
    {
      name: `RSS growth over a ${seconds} s soak of runs without session_id (10 connections, 10-call batches)`,
      unit: 'MB',
      value: Math.round(growth * 10) / 10,
      baselineName: 'RSS after warm-up, MB',
      baseline: Math.round((before / MB) * 10) / 10,
      goal: { atMost: FLAT_MB },
      met: growth < FLAT_MB,
      details: {
        seconds,
        runs: Math.round(figures.requestsPerSecond * seconds),
        peakMb: Math.round(Math.max(before, after, ...samples) / MB),
      },
    },
  ])
} finally {
  await service.stop()
  await rm(scratch, { recursive: true, force: true })
}
