/**
 * The console's two speed goals (issue: the console), in Debian's chromium driven by Playwright
 * against `node dist/server.js` in its own process:
 * - a list of 1,000 runs renders in under a second (from navigation to 1,000 rows drawn), beside
 *   its floor, the same page with an empty list;
 * - a run of 10,000 events stays responsive: the whole replay applied, the longest main-thread
 *   task while it is (Long Tasks API), and a click on the last call answered after it.
 *
 *   npx tsx bench/console-render.ts [runs=1000] [calls=2500]
 */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium, type Page } from 'playwright-core'
import { buildConsole } from '../scripts/build-console.js'
import { emitFigures, type Figure } from './lib/report.js'
import { REPOSITORY, startService } from './lib/server-process.js'

const runs = Number(process.argv[2] ?? 1000)
const calls = Number(process.argv[3] ?? 2500)
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

if (!existsSync(CHROMIUM)) {
  console.log(`console-render: skipped, ${CHROMIUM} is not installed`)
  emitFigures([])
  process.exit(0)
}

const noop = (index: number) => ({
  type: 'tool_use',
  id: `toolu_${index}`,
  name: 'ToolSearch',
  input: { query: 'select:Noop' },
})

async function post(url: string, body: unknown) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  return (await response.json()) as { run_id: string }
}

type Ready = { rows?: number; applied?: number; calls?: number }

/**
 * Milliseconds from navigation until the page shows what `ready` says. A function predicate, not
 * a string: the console's CSP forbids evaluating strings, and the bench does not bypass it.
 */
async function timeTo(page: Page, url: string, ready: Ready): Promise<number> {
  const started = performance.now()
  await page.goto(url)
  await page.waitForFunction(
    ({ rows, applied, calls }) =>
      (rows === undefined ||
        (document.querySelectorAll('table.runs tbody tr').length === rows &&
          (document.querySelector('.summary')?.textContent ?? '').startsWith(`${rows} of`))) &&
      (applied === undefined || document.querySelector('main')?.dataset.applied === String(applied)) &&
      (calls === undefined || document.querySelectorAll('.calls > li').length >= calls),
    ready,
    { polling: 'raf', timeout: 60_000 },
  )
  return performance.now() - started
}

/** A run's page from a blank one until `events` are applied, and the longest main-thread task meanwhile. */
async function replayed(page: Page, url: string, events: number): Promise<{ ms: number; longest: number }> {
  await page.goto('about:blank')
  const ms = await timeTo(page, url, { applied: events })
  // Long tasks recorded while the page loaded and replayed (buffered entries since navigation).
  const longest = await page.evaluate(
    () =>
      new Promise<number>((resolve) => {
        new PerformanceObserver((list) =>
          resolve(Math.max(0, ...list.getEntries().map((entry) => entry.duration))),
        ).observe({
          type: 'longtask',
          buffered: true,
        })
        setTimeout(() => resolve(0), 500)
      }),
  )
  return { ms, longest }
}

await buildConsole(path.join(REPOSITORY, 'dist', 'console'))
const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-console-'))
const service = await startService(scratch, {
  TOOLEXEC_MAX_BLOCKS_PER_RUN: String(calls),
  TOOLEXEC_MAX_RETAINED_RUNS: String(runs * 2),
})
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
})
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } })
  // The floor: the same page with nothing to list, after one navigation that warms the browser.
  await timeTo(page, `${service.url}/console`, { rows: 0 })
  const floors: number[] = []
  for (let round = 0; round < 3; round++) floors.push(await timeTo(page, `${service.url}/console`, { rows: 0 }))
  const floor = [...floors].sort((a, b) => a - b)[1]!

  for (let next = 0; next < runs; next += 20)
    await Promise.all(
      Array.from({ length: Math.min(20, runs - next) }, (_, index) =>
        post(`${service.url}/v1/runs`, { tool_uses: [noop(next + index)] }),
      ),
    )
  const list: number[] = []
  for (let round = 0; round < 3; round++) list.push(await timeTo(page, `${service.url}/console`, { rows: runs }))

  // The replay's floor: the same page replaying a run of one call, after the same navigation.
  const { run_id: smallId } = await post(`${service.url}/v1/runs`, { tool_uses: [noop(0)] })
  // Twice: the first load of a run's page also compiles its script.
  await replayed(page, `${service.url}/console/runs/${smallId}`, 1 * 4 + 2)
  const small = await replayed(page, `${service.url}/console/runs/${smallId}`, 1 * 4 + 2)
  const { run_id: runId } = await post(`${service.url}/v1/runs`, {
    tool_uses: Array.from({ length: calls }, (_, index) => noop(index)),
  })
  const events = calls * 4 + 2
  const { ms: replay, longest } = await replayed(page, `${service.url}/console/runs/${runId}`, events)
  // Responsive after it: "Show all" draws every call, and the last call's input opens on a click.
  const clicked = performance.now()
  await page.getByRole('button', { name: `Show all ${calls}` }).click()
  const last = page.locator('.calls > li').last().locator('summary')
  await last.click()
  await page.locator('.calls > li').last().locator('details[open]').waitFor()
  const clickMs = performance.now() - clicked

  const median = [...list].sort((a, b) => a - b)[1]!
  const figures: Figure[] = [
    {
      name: `console: ${runs} runs listed`,
      unit: 'ms',
      value: Math.round(median),
      baselineName: 'the same page with no runs',
      baseline: Math.round(floor),
      goal: { atMost: 1000 },
      met: median <= 1000,
      details: { rounds: list.map(Math.round), floors: floors.map(Math.round) },
    },
    {
      name: `console: a run of ${events} events replayed`,
      unit: 'ms',
      value: Math.round(replay),
      baselineName: 'the same page replaying a run of one call',
      baseline: Math.round(small.ms),
      details: { longestTaskMs: Math.round(longest), showAllThenOpenLastMs: Math.round(clickMs) },
    },
    {
      name: 'console: longest main-thread task during that replay',
      unit: 'ms',
      value: Math.round(longest),
      baselineName: 'the same, replaying a run of one call',
      baseline: Math.round(small.longest),
      goal: { atMost: 200 },
      met: longest <= 200,
    },
  ]
  emitFigures(figures)
} finally {
  await browser.close()
  await service.stop()
  await rm(scratch, { recursive: true, force: true })
}
