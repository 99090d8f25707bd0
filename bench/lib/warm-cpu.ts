/**
 * Where the CPU of a Bash run goes at 16 in flight, for bench/warm-sandboxes.ts
 * (docs/adr/0482-the-warm-bench-prints-where-a-runs-cpu-goes.md): the service's own, its
 * spawner's, the sandboxes' (the spawner's reaped children), the load generator's, each per run,
 * against the bare spawn's; and a no-op run's, the part of a run that is not the Bash path.
 */
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { childPids, type ProcessCpu, processCpu } from './process-cpu.js'
import { type Figure, ratioFigure } from './report.js'
import type { ServerProcess } from './server-process.js'

/** The spawner: the service's child running the native spawner or spawner-main (started with the first command). */
export function spawnerPid(service: ServerProcess): number | undefined {
  const pid = service.child.pid
  if (pid === undefined) return undefined
  return childPids(pid).find((child) => {
    try {
      const cmdline = readFileSync(`/proc/${child}/cmdline`, 'utf8')
      return cmdline.includes('toolexec-spawner') || cmdline.includes('spawner-main')
    } catch {
      return false
    }
  })
}

const perRun = (ms: number, count: number) => Math.round((ms / Math.max(count, 1)) * 100) / 100

/** CPU in ms spent by each side over the phases it measured, from /proc. */
export function cpuMeter(service: ServerProcess) {
  const zero: ProcessCpu = { ownMs: 0, childrenMs: 0 }
  const read = (pid: number | undefined) => (pid === undefined ? zero : processCpu(pid))
  // `servicePerRun`: each phase's own figure, in order: it moves with the host's load and with the
  // service's warm-up, which the sum over the phases hides (docs/adr/0591, 0609).
  const totals = () => ({ runs: 0, service: 0, spawner: 0, sandboxes: 0, client: 0, servicePerRun: [] as number[] })
  // `warmUp`: the service's runs before the rounds, apart from them (docs/adr/0609).
  const sides = { bash: totals(), noop: totals(), bare: totals(), warmUp: totals() }
  return {
    sides,
    /**
     * Runs `phase` (through the service when `side` is bash, noop or warmUp, bare spawns from this process
     * when bare) and adds its completions and what each process spent.
     */
    async measure<T extends { done: number }>(side: keyof typeof sides, phase: () => Promise<T>): Promise<T> {
      const pids = [service.child.pid, spawnerPid(service)] as const
      const before = [read(pids[0]), read(pids[1]), processCpu('self')] as const
      const result = await phase()
      const after = [read(pids[0]), read(pids[1]), processCpu('self')] as const
      const total = sides[side]
      total.runs += result.done
      total.client += after[2].ownMs - before[2].ownMs
      if (side === 'bare') {
        total.sandboxes += after[2].childrenMs - before[2].childrenMs
        return result
      }
      total.service += after[0].ownMs - before[0].ownMs
      total.servicePerRun.push(perRun(after[0].ownMs - before[0].ownMs, result.done))
      total.spawner += after[1].ownMs - before[1].ownMs
      total.sandboxes += after[1].childrenMs - before[1].childrenMs
      return result
    },
  }
}

type Side = ReturnType<typeof cpuMeter>['sides']['bash']

/**
 * The decomposition as figures without a goal (docs/adr/0482). On a host whose cores are all busy
 * (16 in flight on 2 cores) runs/s is about cores / CPU per run, so the bare spawn's CPU over a
 * run's is the ceiling of the runs/s ratio; the last figure is that ceiling were the Bash path to
 * cost the service nothing beyond a no-op run: the spawner's fork, the sandbox and the HTTP run stay.
 */
export function cpuFigures(sides: { bash: Side; noop: Side; bare: Side }, clients: number): Figure[] {
  const { bash, noop, bare } = sides
  const sandbox = perRun(bare.sandboxes, bare.runs)
  const bareTotal = perRun(bare.client + bare.sandboxes, bare.runs)
  const runTotal = perRun(bash.client + bash.service + bash.spawner + bash.sandboxes, bash.runs)
  const noopRun = perRun(noop.client + noop.service, noop.runs)
  const floorRun = Math.round((noopRun + perRun(bash.spawner + bash.sandboxes, bash.runs)) * 100) / 100
  const name = `Bash \`true\`, bubblewrap, ${clients} clients in flight: CPU per run`
  const details = {
    runs: bash.runs,
    serviceMs: perRun(bash.service, bash.runs),
    servicePhaseMs: bash.servicePerRun,
    spawnerMs: perRun(bash.spawner, bash.runs),
    sandboxMs: perRun(bash.sandboxes, bash.runs),
    clientMs: perRun(bash.client, bash.runs),
    noopRuns: noop.runs,
    noopServiceMs: perRun(noop.service, noop.runs),
    noopServicePhaseMs: noop.servicePerRun,
    noopClientMs: perRun(noop.client, noop.runs),
    bareSpawns: bare.runs,
    bareSpawningMs: perRun(bare.client, bare.runs),
    bareSandboxMs: sandbox,
    bareMs: bareTotal,
    runMs: runTotal,
    freeBashRunMs: floorRun,
    cores: availableParallelism(),
  }
  // Runs/s the host's cores could give at a CPU cost per run: the ratio of two is the inverse of their costs'.
  const cores = availableParallelism()
  const rate = (ms: number) => (cores * 1000) / ms
  const ceiling = 'bare spawns/s the cores could give at the bare spawn’s CPU (spawning process and sandbox)'
  return [
    ratioFigure({
      name: `${name}, the service and its spawner`,
      unit: 'ms',
      value: perRun(bash.service + bash.spawner, bash.runs),
      baselineName: 'the sandbox’s own CPU per bare spawn',
      baseline: sandbox,
      details,
    }),
    ratioFigure({
      name: `${name}: runs/s the cores could give at it (client, service, spawner, sandbox)`,
      unit: 'runs/s',
      value: rate(runTotal),
      baselineName: ceiling,
      baseline: rate(bareTotal),
      details,
    }),
    ratioFigure({
      name: `${name}: the same, were the Bash path free (a no-op run’s client and service, the spawner, the sandbox)`,
      unit: 'runs/s',
      value: rate(floorRun),
      baselineName: ceiling,
      baseline: rate(bareTotal),
      details,
    }),
  ]
}
