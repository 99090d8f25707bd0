/**
 * Warm sandboxes (issue 23, goals 3 and 4; docs/adr/0390-warm-sandboxes.md), both against bare
 * `bwrap … bash -c true` spawned from this process in the same run:
 * - latency: Bash `true` through `POST /v1/runs`, one client in flight, with the pool at its
 *   defaults, call by call in turn with the bare cold spawn, each once the last call's refill
 *   is done (goal: p50 ≤ 0.5× the cold floor);
 * - throughput: 16 clients in flight (16 sessions, as 16 agents), Bash `true` runs/s against
 *   bare spawns/s at 16 in flight, in alternating phases so the host's load weighs on both
 *   (goal ≥ 0.8×).
 *
 * Beside them, where the CPU of a run goes at 16 in flight (docs/adr/0482): the service's, the
 * spawner's and the sandboxes' own, per run, from /proc, against the bare spawn's; on 2 cores
 * throughput is about cores / CPU per run, so these rows say what ratio the design can reach.
 *
 *   npx tsx bench/warm-sandboxes.ts [--seconds 5] [--cpu-prof DIR]
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { childPids, type ProcessCpu, processCpu } from './lib/process-cpu.js'
import { emitFigures, type Figure, ratioFigure } from './lib/report.js'
import { jsonClient, summarise, timeSerially } from './lib/serial-latency.js'
import { type ServerProcess, startService } from './lib/server-process.js'

const BWRAP_FLOOR = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent']
const CLIENTS = 16
const ROUNDS = 3

/** The cold floor: bare bubblewrap running `bash -c true`, until it exited and its pipes closed. */
function bareSandbox(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('bwrap', [...BWRAP_FLOOR, 'bash', '-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.resume()
    child.stderr.resume()
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`bwrap exited with ${code}`))))
  })
}

/** A session allowed to run Bash, and a client running `true` in it (each answer checked). */
async function bashClient(service: ServerProcess) {
  const sessions = jsonClient(`${service.url}/v1/sessions`)
  const { session_id } = JSON.parse(
    await sessions.post(JSON.stringify({ cwd: 'bench', permissions: { allow: ['Bash'] } })),
  ) as { session_id: string }
  sessions.close()
  const client = jsonClient(`${service.url}/v1/runs`)
  const body = JSON.stringify({
    session_id,
    tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'true' } }],
  })
  return {
    async run() {
      const answer = JSON.parse(await client.post(body)) as { results: { is_error?: boolean; content: unknown }[] }
      const result = answer.results[0]
      if (!result || result.is_error) throw new Error(`Bash failed: ${JSON.stringify(result?.content)}`)
    },
    close: client.close,
  }
}

/** Completions per second of `loops` run side by side, each back to back, for `seconds`. */
async function perSecond(loops: (() => Promise<void>)[], seconds: number): Promise<{ rate: number; done: number }> {
  let done = 0
  const until = performance.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(
    loops.map(async (run) => {
      while (performance.now() < until) {
        await run()
        done += 1
      }
    }),
  )
  return { rate: done / ((performance.now() - started) / 1000), done }
}

async function warmState(service: ServerProcess): Promise<Record<string, number>> {
  const readyz = (await (await fetch(`${service.url}/readyz`)).json()) as { warm_sandboxes?: Record<string, number> }
  return readyz.warm_sandboxes ?? {}
}

/**
 * Until no warm sandbox is being set up (the last call's refill is done), outside the timed part:
 * a latency sample, the floor's or the service's, never shares the CPU with a refill that a
 * real session, whose calls come seconds apart, would have finished long before (docs/adr/0472).
 */
async function settled(service: ServerProcess): Promise<void> {
  for (let polls = 0; polls < 200 && (await warmState(service)).starting !== 0; polls += 1)
    await new Promise((resolve) => setTimeout(resolve, 5))
}

/** The spawner: the service's child running spawner-main (started with the first command). */
function spawnerPid(service: ServerProcess): number | undefined {
  const pid = service.child.pid
  if (pid === undefined) return undefined
  return childPids(pid).find((child) => {
    try {
      return readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('spawner-main')
    } catch {
      return false
    }
  })
}

type CpuTotals = { service: number; spawner: number; sandboxes: number; client: number }

/** CPU in ms spent by each side over the phases `measure` runs, from /proc. */
function cpuMeter(service: ServerProcess) {
  const totals: CpuTotals = { service: 0, spawner: 0, sandboxes: 0, client: 0 }
  const bareTotals = { client: 0, sandboxes: 0 }
  const zero: ProcessCpu = { ownMs: 0, childrenMs: 0 }
  const read = (pid: number | undefined) => (pid === undefined ? zero : processCpu(pid))
  return {
    totals,
    bareTotals,
    /** Runs `phase` and adds what the service, its spawner, the sandboxes and this process spent. */
    async service<T>(phase: () => Promise<T>): Promise<T> {
      const spawner = spawnerPid(service)
      const before = [read(service.child.pid), read(spawner), processCpu('self')] as const
      const result = await phase()
      const after = [read(service.child.pid), read(spawner), processCpu('self')] as const
      totals.service += after[0].ownMs - before[0].ownMs
      totals.spawner += after[1].ownMs - before[1].ownMs
      totals.sandboxes += after[1].childrenMs - before[1].childrenMs
      totals.client += after[2].ownMs - before[2].ownMs
      return result
    },
    /** Runs `phase` of bare spawns and adds this process's CPU (the spawning) and its children's. */
    async bare<T>(phase: () => Promise<T>): Promise<T> {
      const before = processCpu('self')
      const result = await phase()
      const after = processCpu('self')
      bareTotals.client += after.ownMs - before.ownMs
      bareTotals.sandboxes += after.childrenMs - before.childrenMs
      return result
    },
  }
}

const perRun = (ms: number, count: number) => Math.round((ms / Math.max(count, 1)) * 100) / 100

/**
 * Where the CPU of a run goes at 16 in flight, against the bare spawn's (docs/adr/0482): no goal,
 * the decomposition that bounds the throughput ratio. The CPU-bound ceiling is the bare spawn's
 * CPU (the spawning process and the sandbox) over a run's (client, service, spawner, sandbox).
 */
function cpuFigures(
  totals: CpuTotals,
  runs: number,
  bare: { client: number; sandboxes: number },
  spawns: number,
): Figure[] {
  const sandbox = perRun(bare.sandboxes, spawns)
  const bareTotal = perRun(bare.client + bare.sandboxes, spawns)
  const runTotal = perRun(totals.client + totals.service + totals.spawner + totals.sandboxes, runs)
  const name = `Bash \`true\`, bubblewrap, ${CLIENTS} clients in flight: CPU per run`
  const details = {
    runs,
    spawns,
    serviceMs: perRun(totals.service, runs),
    spawnerMs: perRun(totals.spawner, runs),
    sandboxMs: perRun(totals.sandboxes, runs),
    clientMs: perRun(totals.client, runs),
    bareSpawningMs: perRun(bare.client, spawns),
    bareSandboxMs: sandbox,
  }
  return [
    ratioFigure({
      name: `${name}, the service and its spawner`,
      unit: 'ms',
      value: perRun(totals.service + totals.spawner, runs),
      baselineName: 'the sandbox’s own CPU per bare spawn',
      baseline: sandbox,
      details,
    }),
    ratioFigure({
      name: `${name}, the sandbox (bwrap, sh, bash)`,
      unit: 'ms',
      value: perRun(totals.sandboxes, runs),
      baselineName: 'the same per bare spawn',
      baseline: sandbox,
      details,
    }),
    ratioFigure({
      name: `${name}, every process (client, service, spawner, sandbox): the CPU-bound ceiling of runs/s`,
      unit: 'ms',
      value: runTotal,
      baselineName: 'the bare spawn’s (spawning process and sandbox); ceiling ratio = baseline / measured',
      baseline: bareTotal,
      details,
    }),
  ]
}

export async function warmSandboxes(seconds: number, cpuProfileDirectory?: string): Promise<Figure[]> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-warm-'))
  const nodeOptions = cpuProfileDirectory ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(cpuProfileDirectory)}`] : []
  const service = await startService(scratch, { TOOLEXEC_SANDBOX: 'bwrap' }, nodeOptions).catch((error: Error) => error)
  if (service instanceof Error) {
    console.log(`warm sandbox figures skipped: ${service.message}`)
    return []
  }
  const figures: Figure[] = []
  try {
    // Latency: the first call of the session fills its pool; then call by call with the floor.
    const one = await bashClient(service)
    for (const run of [bareSandbox, one.run]) await timeSerially(run, 0.5)
    const before = await warmState(service)
    const floor: number[] = []
    const warm: number[] = []
    const until = performance.now() + seconds * 1000
    while (performance.now() < until) {
      await settled(service)
      floor.push(...(await timeSerially(bareSandbox, 0)))
      await settled(service)
      warm.push(...(await timeSerially(one.run, 0)))
    }
    const after = await warmState(service)
    one.close()
    const [service50, floor50] = [summarise(warm), summarise(floor)]
    figures.push(
      ratioFigure({
        name: 'Bash `true`, bubblewrap, warm sandboxes: p50, one client in flight',
        unit: 'ms',
        value: service50.p50,
        baselineName:
          'bare cold `bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent bash -c true`, p50',
        baseline: floor50.p50,
        goal: { atMost: 0.5 },
        details: {
          p99Ms: service50.p99,
          calls: service50.requests,
          floorP99Ms: floor50.p99,
          floorRuns: floor50.requests,
          hits: (after.hits ?? 0) - (before.hits ?? 0),
          misses: (after.misses ?? 0) - (before.misses ?? 0),
        },
      }),
    )

    // Throughput: 16 in flight, bare and through the service in turn, ROUNDS times each.
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => bashClient(service)))
    await Promise.all(clients.map((client) => timeSerially(client.run, 0.3)))
    const phase = Math.max(1, seconds / ROUNDS)
    const bare: number[] = []
    const runs: number[] = []
    const start = await warmState(service)
    const meter = cpuMeter(service)
    let [bareCount, runCount] = [0, 0]
    for (let round = 0; round < ROUNDS; round += 1) {
      const spawned = await meter.bare(() =>
        perSecond(
          Array.from({ length: CLIENTS }, () => bareSandbox),
          phase,
        ),
      )
      bare.push(spawned.rate)
      bareCount += spawned.done
      const ran = await meter.service(() =>
        perSecond(
          clients.map((client) => client.run),
          phase,
        ),
      )
      runs.push(ran.rate)
      runCount += ran.done
    }
    const end = await warmState(service)
    for (const client of clients) client.close()
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
    figures.push(
      ratioFigure({
        name: `Bash \`true\`, bubblewrap: runs/s, ${CLIENTS} clients in flight`,
        unit: 'runs/s',
        value: mean(runs),
        baselineName: `bare \`bwrap … bash -c true\` spawns/s, ${CLIENTS} in flight`,
        baseline: mean(bare),
        goal: { atLeast: 0.8 },
        details: {
          phaseSeconds: phase,
          rounds: ROUNDS,
          runsPerSecond: runs.map(Math.round),
          bareSpawnsPerSecond: bare.map(Math.round),
          hits: (end.hits ?? 0) - (start.hits ?? 0),
          misses: (end.misses ?? 0) - (start.misses ?? 0),
        },
      }),
      ...cpuFigures(meter.totals, runCount, meter.bareTotals, bareCount),
    )
  } finally {
    await service.stop()
    await rm(scratch, { recursive: true, force: true })
  }
  return figures
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '5' }, 'cpu-prof': { type: 'string' } },
  })
  emitFigures(await warmSandboxes(Number(values.seconds), values['cpu-prof']))
}
