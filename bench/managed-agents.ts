/**
 * Issue 25's Managed Agents bench: workers against the protocol double (test/helpers/managed-agents),
 * each worker a process of its own, the double (standing in for Anthropic's API) in this one.
 *  - turn: one session turn of 10 read-only calls (`sleep 0.2` in bash); wall time from the worker's
 *    claim of the item to the last result, median of `--turn-runs`;
 *  - sessions: `--sessions` sessions opened at once, each one turn of `--calls-per-session` such calls;
 *    sessions/s from the first claim to the last session's end, and the worker's CPU seconds meanwhile.
 * `--instances N` starts N processes of each worker on the same environment (CPU summed over them).
 * Every call must be answered exactly once with no refused send, or the bench fails.
 * With toolexec's worker in `--workers`, its figures are printed as ratios to the reference worker's:
 * the goals are wall time ≤ 0.3× for the turn and sessions/s ≥ 5× (docs/managed-agents-double.md).
 *
 *   npx tsx bench/managed-agents.ts [--workers sdk-reference,toolexec] [--sessions 50] [--turn-runs 3] [--instances 1]
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import {
  type ManagedAgentsDouble,
  type ScriptedSession,
  startManagedAgentsDouble,
} from '../test/helpers/managed-agents/index.js'
import { WORKERS, type WorkerProcess, type WorkerUnderTest } from './lib/managed-agents-workers.js'
import { emitFigures, type Figure, ratioFigure } from './lib/report.js'

const { values } = parseArgs({
  options: {
    workers: { type: 'string', default: 'sdk-reference' },
    sessions: { type: 'string', default: '50' },
    'calls-per-session': { type: 'string', default: '2' },
    'turn-runs': { type: 'string', default: '3' },
    'timeout-seconds': { type: 'string', default: '120' },
    instances: { type: 'string', default: '1' },
  },
})
const sessionCount = Number(values.sessions)
const callsPerSession = Number(values['calls-per-session'])
const turnRuns = Number(values['turn-runs'])
const timeoutMs = Number(values['timeout-seconds']) * 1000
const instances = Number(values.instances)
const workers = values.workers.split(',').map((name) => {
  const worker = WORKERS[name.trim()]
  if (worker === undefined)
    throw new Error(`--workers: unknown worker ${name}; known: ${Object.keys(WORKERS).join(', ')}`)
  return worker
})

const sleepCalls = (count: number) =>
  Array.from({ length: count }, () => ({ name: 'bash', input: { command: 'sleep 0.2' } }))

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not done within ${timeoutMs / 1000} s`)), timeoutMs)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** When the worker claimed the session's item (its first delivery). */
function claimed(double: ManagedAgentsDouble, session: ScriptedSession): Promise<number> {
  const work = double.workFor(session.id)
  return double.waitForWork(work.id, (item) => item.deliveries >= 1).then(() => performance.now())
}

/** Names every call not answered exactly once, and every refused send. */
function faults(sessions: readonly ScriptedSession[]): string[] {
  return sessions.flatMap((session) => [
    ...session.turnIds
      .flat()
      .filter((id) => session.resultsFor(id).length !== 1)
      .map((id) => `${session.id}/${id}: ${session.resultsFor(id).length} results`),
    ...session.refusedResults().map((attempt) => `${session.id}/${attempt.toolUseId}: refused, ${attempt.message}`),
  ])
}

type Measured = {
  turnMs: number
  turnRunsMs: number[]
  sessionsPerSecond: number
  /** The worker process's CPU seconds over the sessions phase. */
  cpuSeconds: number
  doubleCpuSeconds: number
  sessionsSeconds: number
}

async function measure(double: ManagedAgentsDouble, worker: WorkerUnderTest): Promise<Measured> {
  const environment = double.createEnvironment()
  const scratch = mkdtempSync(path.join(os.tmpdir(), `toolexec-ma-bench-${worker.name}-`))
  const processes: WorkerProcess[] = []
  const cpuOfWorkers = () => processes.reduce((sum, child) => sum + child.cpuSeconds(), 0)
  try {
    for (let instance = 0; instance < instances; instance++) {
      const instanceScratch = path.join(scratch, String(instance))
      mkdirSync(instanceScratch)
      processes.push(worker.start({ baseURL: double.baseURL, environment, scratch: instanceScratch }))
    }
    const pollPath = `/v1/environments/${environment.id}/work/poll`
    await within(
      double.waitForRequest((request) => request.path === pollPath),
      `${worker.name}: first poll`,
    )

    const turnRunsMs: number[] = []
    for (let run = 0; run < turnRuns; run++) {
      const session = double.openSession(environment.id, { turns: [sleepCalls(10)] })
      const start = claimed(double, session)
      await within(session.waitForEnd(), `${worker.name}: turn ${run}`)
      turnRunsMs.push(performance.now() - (await start))
      const wrong = faults([session])
      if (wrong.length > 0) throw new Error(`${worker.name}: turn ${run}: ${wrong.join('; ')}`)
    }

    const cpuBefore = cpuOfWorkers()
    // The double's own CPU (this process), to see whether it, not the worker, is the limit.
    const doubleBefore = process.cpuUsage()
    const sessions = Array.from({ length: sessionCount }, () =>
      double.openSession(environment.id, { turns: [sleepCalls(callsPerSession)] }),
    )
    const firstClaim = Promise.race(sessions.map((session) => claimed(double, session)))
    await within(
      Promise.all(sessions.map((session) => session.waitForEnd())),
      `${worker.name}: ${sessionCount} sessions`,
    )
    const seconds = (performance.now() - (await firstClaim)) / 1000
    const cpuSeconds = cpuOfWorkers() - cpuBefore
    const doubleUsage = process.cpuUsage(doubleBefore)
    const doubleCpuSeconds = (doubleUsage.user + doubleUsage.system) / 1e6
    const wrong = faults(sessions)
    if (wrong.length > 0) throw new Error(`${worker.name}: sessions: ${wrong.slice(0, 5).join('; ')}`)
    const sorted = [...turnRunsMs].sort((a, b) => a - b)
    return {
      // Microseconds are noise here; the report prints what it is given.
      turnMs: Math.round((sorted[Math.floor(sorted.length / 2)] as number) * 1000) / 1000,
      turnRunsMs,
      sessionsPerSecond: Math.round((sessionCount / seconds) * 1000) / 1000,
      cpuSeconds,
      doubleCpuSeconds,
      sessionsSeconds: seconds,
    }
  } finally {
    await Promise.all(processes.map((child) => child.stop()))
    rmSync(scratch, { recursive: true, force: true })
  }
}

const double = await startManagedAgentsDouble({ leaseTtlSeconds: 60 })
console.log(`${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, node ${process.version}`)
const results = new Map<string, Measured>()
try {
  for (const worker of workers) {
    const measured = await measure(double, worker)
    results.set(worker.name, measured)
    console.log(
      `${worker.name}: turn runs ${measured.turnRunsMs.map((ms) => Math.round(ms)).join(', ')} ms; ` +
        `${sessionCount} sessions at ${measured.sessionsPerSecond.toFixed(2)}/s in ${measured.sessionsSeconds.toFixed(1)} s, ` +
        `worker ${measured.cpuSeconds.toFixed(2)} CPU s, double ${measured.doubleCpuSeconds.toFixed(2)} CPU s`,
    )
  }
} finally {
  await double.close()
}

const figures: Figure[] = []
const reference = results.get('sdk-reference')
for (const [name, measured] of results) {
  const details = {
    turnRunsMs: measured.turnRunsMs,
    cpuSeconds: measured.cpuSeconds,
    doubleCpuSeconds: measured.doubleCpuSeconds,
    sessions: sessionCount,
    callsPerSession,
    instances,
  }
  if (name === 'sdk-reference' || reference === undefined) {
    figures.push({
      name: `managed-agents turn of 10 × sleep 0.2 (${name})`,
      unit: 'ms',
      value: measured.turnMs,
      details,
    })
    figures.push({
      name: `managed-agents sessions/s (${name})`,
      unit: 'sessions/s',
      value: measured.sessionsPerSecond,
      details,
    })
    continue
  }
  figures.push(
    ratioFigure({
      name: `managed-agents turn of 10 × sleep 0.2 (${name})`,
      unit: 'ms',
      value: measured.turnMs,
      baselineName: 'SDK reference worker',
      baseline: reference.turnMs,
      goal: { atMost: 0.3 },
      details,
    }),
    ratioFigure({
      name: `managed-agents sessions/s (${name})`,
      unit: 'sessions/s',
      value: measured.sessionsPerSecond,
      baselineName: 'SDK reference worker',
      baseline: reference.sessionsPerSecond,
      goal: { atLeast: 5 },
      details,
    }),
  )
}
emitFigures(figures)
