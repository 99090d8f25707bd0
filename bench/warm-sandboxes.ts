import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import {
  bareSandbox,
  bareWarmSandbox,
  FLOOR_WARM,
  serviceWarmLaunch,
  type WarmLaunch,
} from './lib/bare-warm-sandbox.js'
import { emitFigures, type Figure, ratioFigure } from './lib/report.js'
import { jsonClient, type LatencySummary, summarise, timeSerially } from './lib/serial-latency.js'
import { type ServerProcess, startService } from './lib/server-process.js'
import { cpuFigures, cpuMeter } from './lib/warm-cpu.js'
import { afterIdle, IDLE_MS, settled, startLimit, warmState } from './lib/warm-service.js'

const CLIENTS = 16
const ROUNDS = 3
/**
 * The 16 clients' Bash runs before the throughput rounds: a fresh service's CPU a run at 16 in
 * flight falls by about half over its first 15–20 s of them while V8 compiles the concurrent
 * path, and the goal is a running service's throughput, not its start's
 * (docs/adr/0609-the-throughput-rounds-begin-after-a-warm-up.md).
 */
const WARM_UP_SECONDS = 15

const BASH_TRUE = { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'true' } }
/** The no-op call of the HTTP benches (bench/lib/noop-batch.ts): a run's cost without the Bash path. */
const NOOP = { type: 'tool_use', id: 'toolu_1', name: 'ToolSearch', input: { query: 'select:Noop' } }

/** A session allowed to run Bash, and a client running `toolUse` in it (each answer checked). */
async function sessionClient(service: ServerProcess, toolUse: Record<string, unknown> = BASH_TRUE) {
  const sessions = jsonClient(`${service.url}/v1/sessions`)
  const { session_id } = JSON.parse(
    await sessions.post(JSON.stringify({ cwd: 'bench', permissions: { allow: ['Bash'] } })),
  ) as { session_id: string }
  sessions.close()
  const client = jsonClient(`${service.url}/v1/runs`)
  const body = JSON.stringify({ session_id, tool_uses: [toolUse] })
  return {
    async run() {
      const answer = JSON.parse(await client.post(body)) as { results: { is_error?: boolean; content: unknown }[] }
      const result = answer.results[0]
      if (!result || result.is_error) throw new Error(`${toolUse.name} failed: ${JSON.stringify(result?.content)}`)
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
    // Latency: the first call of the session fills its pool; then call by call with the floor,
    // the warm sandbox alone and a no-op run (the run's own cost, docs/adr/0483).
    const one = await sessionClient(service)
    const noop = await sessionClient(service, NOOP)
    for (const run of [bareSandbox, one.run, noop.run]) await timeSerially(run, 0.5)
    const before = await warmState(service)
    await settled(service)
    const layout = serviceWarmLaunch(service)
    const [floor, warm, alone, own, noops]: [number[], number[], number[], number[], number[]] = [[], [], [], [], []]
    const timeAlone = async (launch: WarmLaunch, into: number[]) => {
      const prepared = await bareWarmSandbox(launch)
      into.push(...(await afterIdle(service, prepared)))
    }
    // Each sample after the same idle (docs/adr/0485): the no-op run is as cold as the warm call.
    const until = performance.now() + seconds * 1000
    while (performance.now() < until) {
      floor.push(...(await afterIdle(service, bareSandbox)))
      warm.push(...(await afterIdle(service, one.run)))
      await timeAlone(FLOOR_WARM, alone)
      if (layout) await timeAlone(layout, own)
      noops.push(...(await afterIdle(service, noop.run)))
    }
    const after = await warmState(service)
    one.close()
    noop.close()
    const [service50, floor50, alone50, noop50] = [warm, floor, alone, noops].map(summarise) as [
      LatencySummary,
      LatencySummary,
      LatencySummary,
      LatencySummary,
    ]
    const own50 = own.length > 0 ? summarise(own) : undefined
    const floorName =
      'bare cold `bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent bash -c true`, p50'
    const ownFigures = own50
      ? [
          ratioFigure({
            name: 'Bash `true` in a warm sandbox alone, the service’s own layout and session (bare, set up ahead, from its command written to its pipes closed): p50',
            // At the service's commands' priority (details.nice), as a warm call's sandbox runs.
            unit: 'ms',
            value: own50.p50,
            baselineName: floorName,
            baseline: floor50.p50,
            details: { p99Ms: own50.p99, runs: own50.requests, arguments: layout?.argv.length, nice: layout?.nice },
          }),
          ratioFigure({
            name: 'A warm call at the cost of its parts: a no-op run’s p50 plus the service’s warm sandbox alone’s',
            unit: 'ms',
            value: noop50.p50 + own50.p50,
            baselineName: floorName,
            baseline: floor50.p50,
            details: { noopP50Ms: noop50.p50, aloneP50Ms: own50.p50, noopRuns: noop50.requests, idleMs: IDLE_MS },
          }),
          // What the service's warm path adds to a run over the sandbox's own work (docs/adr/0485).
          ratioFigure({
            name: 'What a warm call adds to its parts: the warm call’s p50 minus a no-op run’s and the service’s warm sandbox alone’s',
            unit: 'ms',
            value: Math.round((service50.p50 - noop50.p50 - own50.p50) * 1000) / 1000,
            baselineName: floorName,
            baseline: floor50.p50,
          }),
        ]
      : []
    figures.push(
      ratioFigure({
        name: 'Bash `true`, bubblewrap, warm sandboxes: p50, one client in flight',
        unit: 'ms',
        value: service50.p50,
        baselineName: floorName,
        baseline: floor50.p50,
        goal: { atMost: 0.5 },
        details: {
          p99Ms: service50.p99,
          calls: service50.requests,
          floorP99Ms: floor50.p99,
          floorRuns: floor50.requests,
          idleMs: IDLE_MS,
          hits: (after.hits ?? 0) - (before.hits ?? 0),
          misses: (after.misses ?? 0) - (before.misses ?? 0),
        },
      }),
      ratioFigure({
        name: 'Bash `true` in a warm sandbox alone, the floor’s arguments (bare, set up ahead, from its command written to its pipes closed): p50',
        unit: 'ms',
        value: alone50.p50,
        baselineName: floorName,
        baseline: floor50.p50,
        details: { p99Ms: alone50.p99, runs: alone50.requests },
      }),
      ...ownFigures,
    )

    // Throughput: 16 in flight, bare and through the service in turn, ROUNDS times each.
    const clients = await Promise.all(Array.from({ length: CLIENTS }, () => sessionClient(service)))
    await Promise.all(clients.map((client) => timeSerially(client.run, 0.3)))
    const phase = Math.max(1, seconds / ROUNDS)
    const bare: number[] = []
    const runs: number[] = []
    const limits: (number | undefined)[] = []
    const meter = cpuMeter(service)
    const warmUp = await meter.measure('warmUp', () =>
      perSecond(
        clients.map((client) => client.run),
        WARM_UP_SECONDS,
      ),
    )
    const start = await warmState(service)
    // The no-op runs in sessions of their own: the part of a run that is not the Bash path.
    const noopClients = await Promise.all(Array.from({ length: CLIENTS }, () => sessionClient(service, NOOP)))
    await Promise.all(noopClients.map((client) => timeSerially(client.run, 0.3)))
    const loops = (run: () => Promise<void>) => Array.from({ length: CLIENTS }, () => run)
    for (let round = 0; round < ROUNDS; round += 1) {
      bare.push((await meter.measure('bare', () => perSecond(loops(bareSandbox), phase))).rate)
      runs.push(
        (
          await meter.measure('bash', () =>
            perSecond(
              clients.map((client) => client.run),
              phase,
            ),
          )
        ).rate,
      )
      // Read after the phase, outside the timed part: where an adaptive start limit settled.
      limits.push((await startLimit(service)).max_starting)
      await meter.measure('noop', () =>
        perSecond(
          noopClients.map((client) => client.run),
          phase / 2,
        ),
      )
    }
    for (const client of noopClients) client.close()
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
          maxStartingAfterPhases: limits,
          warmUpSeconds: WARM_UP_SECONDS,
          warmUpRunsPerSecond: Math.round(warmUp.rate),
          warmUpServiceMsPerRun: meter.sides.warmUp.servicePerRun[0],
          pacing: (await startLimit(service)).pacing,
          hits: (end.hits ?? 0) - (start.hits ?? 0),
          misses: (end.misses ?? 0) - (start.misses ?? 0),
        },
      }),
      ...cpuFigures(meter.sides, CLIENTS),
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
