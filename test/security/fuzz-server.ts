import { readFileSync } from 'node:fs'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import fc from 'fast-check'
import { expect } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'

/** What every fuzz file asserts at the end: cases run, faults seen, the longest event-loop stall. */
export type FuzzTally = { cases: number; serverErrors: string[] }

/** Tool names the generators pick from: built-ins, the test Echo, and names that do not exist. */
export const TOOL_NAMES = ['Read', 'Glob', 'Grep', 'TodoWrite', 'ToolSearch', 'Write', 'Edit', 'Bash', 'Echo']

/** `{"a":{"a":…}}` text, so depths far past TOOLEXEC_MAX_INPUT_DEPTH are generated cheaply. */
export const deepJson = fc
  .integer({ min: 1, max: 4000 })
  .map((depth) => `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`)

/** Any JSON value, with a bias towards the shapes the routes expect. */
export const anyJson = fc.jsonValue({ maxDepth: 6 })

/** The longest synchronous stretch asserted: the event loop's thread on a CPU for a second. */
const STALL_LIMIT_MS = 1000

/**
 * This thread's time on a CPU, in ms: the first field of its scheduler statistics, or where the
 * kernel keeps none, user and system time from its `stat` (clock ticks of 10 ms, Linux's USER_HZ).
 */
function threadCpuMs(): number {
  try {
    return Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6
  } catch {
    const fields = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]?.split(' ') ?? []
    return (Number(fields[11]) + Number(fields[12])) * 10
  }
}

/**
 * Watches for the event loop held by synchronous work: a 50 ms timer reads the thread's CPU time
 * at each tick, and a tick late because the thread computed shows that work as the CPU time
 * between two ticks. Time spent waiting for a core on a loaded host does not count, as it does in
 * the loop's wall-clock delay, so the bound holds on any host of our kind
 * (docs/adr/0543-a-fuzz-stall-is-time-on-a-cpu.md).
 */
function watchCpuStretches() {
  let last = threadCpuMs()
  let longest = 0
  const timer = setInterval(() => {
    const now = threadCpuMs()
    longest = Math.max(longest, now - last)
    last = now
  }, 50)
  return {
    /** Stops the watch and gives the longest stretch, the last one (up to now) included. */
    stop() {
      clearInterval(timer)
      return Math.max(longest, threadCpuMs() - last)
    },
  }
}

/**
 * A listening server with the built-ins and the test Echo, plus an event-loop watch: the fuzz
 * files run their cases against it and `finish` asserts 0 5xx, 0 internal_error frames and no
 * stretch of a second's work on the loop (docs/security.md, Figures). A crash would fail the
 * file as an uncaught error in this very process.
 */
export async function startFuzzServer() {
  const tools = createTestTools()
  const server = await startTestServer({
    extraTools: tools.tools.filter((tool) => tool.name === 'Echo'),
    env: { TOOLEXEC_PERMISSION_TIMEOUT_MS: '50', TOOLEXEC_MAX_RESULT_CHARS: '20000' },
  })
  const loop = monitorEventLoopDelay({ resolution: 10 })
  loop.enable()
  const stretches = watchCpuStretches()
  const tally: FuzzTally = { cases: 0, serverErrors: [] }
  return {
    server,
    tally,
    /** POSTs (or sends `method`) raw text and records any 5xx with the body that caused it. */
    async request(method: string, url: string, body?: string) {
      const response = await fetch(`${server.baseUrl}${url}`, {
        method,
        ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }),
      })
      const text = await response.text()
      if (response.status >= 500)
        tally.serverErrors.push(`${method} ${url} ${body?.slice(0, 300)} → ${response.status} ${text}`)
      return { status: response.status, text }
    },
    /** Asserts the run's figures: at least `minimumCases`, no 5xx, no stall, still serving. */
    async finish(minimumCases: number) {
      loop.disable()
      const longestStretch = stretches.stop()
      expect(tally.serverErrors).toEqual([])
      expect(tally.cases).toBeGreaterThanOrEqual(minimumCases)
      expect(longestStretch).toBeLessThan(STALL_LIMIT_MS)
      expect((await fetch(`${server.baseUrl}/healthz`)).status).toBe(200)
      process.stdout.write(
        `fuzz: ${tally.cases} cases, 0 5xx, longest stretch on a CPU ${longestStretch.toFixed(0)} ms, longest event-loop delay ${(loop.max / 1e6).toFixed(0)} ms (the host's waits included)\n`,
      )
    },
  }
}

export type FuzzServer = Awaited<ReturnType<typeof startFuzzServer>>
export type { TestServer }

/**
 * Only a guard against a hang: every fuzz file runs a fixed number of cases, never "as many as fit
 * in a time", so a slow or loaded host runs the same cases and only takes longer (idle, about
 * 20-30 s a file on 2 cores). The asserted case counts catch a property stopped early.
 */
export const FUZZ_TEST_TIMEOUT_MS = 600_000
