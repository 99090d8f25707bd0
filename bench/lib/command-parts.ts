/** The parts of a Bash or Grep call measured without the service: the command bare, through a spawner, and a cold no-op run (docs/adr/0474, 0495). */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Duplex } from 'node:stream'
import { usableDirect } from '../../src/tools/bash/launch-command.js'
import type { LaunchOptions } from '../../src/tools/bash/launch-in-process.js'
import { commandEnvironment } from '../../src/tools/bash/run-shell-command.js'
import { connectSpawner } from '../../src/tools/bash/spawner-client.js'
import { noopBatch } from './noop-batch.js'
import { type Figure, ratioFigure } from './report.js'
import { jsonClient, summarise } from './serial-latency.js'
import { REPOSITORY, type ServerProcess } from './server-process.js'

export type Measured = { service: number[]; floor: number[] }

/**
 * The service's own argv for Bash `true` started two ways without the service: bare from this
 * process, and through a spawner process of the compiled build (src/tools/bash/spawner-main.ts)
 * launched from here. Against the floor, the first is what the containment itself adds (the
 * namespace's init shell, bubblewrap's layout, the start announce: behaviour, docs/adr/0461,
 * 0384, 0301); the second adds the spawner hop; the service's figure adds the HTTP request and
 * the run. Figures with their floor and no goal: the decomposition of goal 2
 * (docs/adr/0474-the-bash-figures-show-their-decomposition.md). `sameSession` as the service
 * starts the command: a PID-namespace or process-group command in a session of its own
 * (docs/adr/0476), bubblewrap and a search in the spawner's. `namespacedArgv`: the command as the
 * service hands it to a spawner that is the PID namespace's init itself; where the spawner says it
 * can, the spawner row measures that, as the service starts it (docs/adr/0555), and `namespaced` says so.
 */
export async function commandParts(
  argv: readonly string[],
  cwd: string,
  sameSession: boolean,
  namespacedArgv?: readonly string[],
  direct?: LaunchOptions['direct'],
) {
  // The spawner the service of the build uses: the native one where `npm run build` compiled it
  // (src/tools/bash/spawner-choice.ts, docs/adr/0501), else the Node one; TOOLEXEC_SPAWNER=node
  // takes the Node one for both, the service and these rows.
  const native = path.join(REPOSITORY, 'dist/native/toolexec-spawner')
  const kind = existsSync(native) && process.env.TOOLEXEC_SPAWNER !== 'node' ? 'native' : 'node'
  const spawner = await connectSpawner(
    kind === 'native' ? native : path.join(REPOSITORY, 'dist/src/tools/bash/spawner-main.js'),
  )
  const env = commandEnvironment()
  // The form the service runs with this spawner: without the wrapper shell where it named the
  // features (docs/adr/0542), stderr merged and, in bubblewrap, the start byte on fd 3 (0540, 0541).
  const chosen = usableDirect(spawner, direct)
  const [file = '', ...args] = chosen?.argv ?? argv
  const announcesStart = chosen ? chosen.unblocksStart : true
  const flags = chosen ? { mergesStderr: true, unblocksStart: chosen.unblocksStart } : {}
  const namespaced = namespacedArgv !== undefined && spawner.features.has('pid-namespace')
  const [spawnerFile = '', ...spawnerArgs] = namespaced ? namespacedArgv : [file, ...args]
  const cpuAtStart = cpuNs(spawner.pid)
  let starts = 0
  const throughSpawner = async () => {
    starts += 1
    const launched = await spawner.launch(spawnerFile, spawnerArgs, {
      cwd,
      env,
      announcesStart: namespaced || announcesStart,
      sameSession,
      pidNamespace: namespaced,
      ...flags,
    })
    launched.stdout.resume()
    launched.stderr.resume()
    const [code] = await launched.exited
    await launched.closed
    if (code !== 0) throw new Error(`${spawnerFile} exited with ${code} through the spawner`)
  }
  /** Which spawner, and its CPU per start (the warm-up's included): it does nothing but these starts. */
  let atClose: SpawnerCpu | undefined
  const spawnerCpu = (): SpawnerCpu =>
    atClose ?? {
      spawner: kind,
      spawnerCpuMsPerStart: Math.round(((cpuNs(spawner.pid) - cpuAtStart) / 1e6 / Math.max(starts, 1)) * 1000) / 1000,
    }
  return {
    bare: () => spawnBare(file, args, cwd, announcesStart, !sameSession, chosen?.unblocksStart === true),
    throughSpawner,
    namespaced,
    spawnerCpu,
    close: () => {
      atClose = spawnerCpu()
      spawner.kill()
    },
  }
}

export type SpawnerCpu = { spawner: string; spawnerCpuMsPerStart: number }

/** A process's CPU time so far, in ns (the scheduler's own account: finer than /proc/PID/stat's ticks). */
function cpuNs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0])
  } catch {
    return 0
  }
}

/**
 * The two rows of commandParts' figures, against `floorName`'s p50. `namespaced`: the spawner is
 * the PID namespace's init (docs/adr/0555), and the argv spawned bare is only the Node spawner's.
 */
export function partFigures(
  label: string,
  floorName: string,
  floor: number[],
  bare: number[],
  throughSpawner: number[],
  spawnerCpu?: SpawnerCpu,
  namespaced = false,
) {
  const row = (name: string, latencies: number[], extra = {}) =>
    ratioFigure({
      name,
      unit: 'ms',
      value: summarise(latencies).p50,
      baselineName: floorName,
      baseline: summarise(floor).p50,
      details: { p99Ms: summarise(latencies).p99, runs: latencies.length, ...extra },
    })
  if (namespaced)
    return [
      row(
        `${label}: the Node spawner's argv (setpriv, unshare, init shell) spawned bare, p50 (the fallback's containment)`,
        bare,
      ),
      row(
        `${label}: the native spawner as the PID namespace's init, no HTTP, p50 (the containment plus the spawner hop)`,
        throughSpawner,
        spawnerCpu,
      ),
    ]
  return [
    row(`${label}: the service's argv spawned bare, p50 (the containment's own cost)`, bare),
    row(
      `${label}: the service's argv through a spawner, no HTTP, p50 (plus the spawner hop)`,
      throughSpawner,
      spawnerCpu,
    ),
  ]
}

/**
 * A no-op run (ToolSearch) posted after the service sat idle as long as before a Bash call: the
 * client first waits the latest floor spawn's latency (a Bash call is posted right after its
 * floor, so the service has been idle that long), then times the run alone, then a second run
 * at once (hot). Each call records its own two latencies; the idle is not timed
 * (docs/adr/0495-the-bash-figures-count-a-cold-no-op-run.md).
 */
export function coldNoopRuns(service: ServerProcess, sessionId: string, idleMs: () => number) {
  const client = jsonClient(`${service.url}/v1/runs`)
  const body = noopBatch(1, { session_id: sessionId })
  const cold: number[] = []
  const hot: number[] = []
  const run = async () => {
    await new Promise((resolve) => setTimeout(resolve, idleMs()))
    let started = performance.now()
    await client.post(body)
    cold.push(performance.now() - started)
    started = performance.now()
    await client.post(body)
    hot.push(performance.now() - started)
  }
  // interleave's warm-up calls come first: the last `calls` entries are the measured ones.
  const measured = (calls: number) => ({ cold: cold.slice(-calls), hot: hot.slice(-calls) })
  return { run, measured, close: client.close }
}

/** `floor` with its latest latency kept: the idle a cold no-op run waits before it is posted. */
export function rememberingLatency(floor: () => Promise<void>) {
  let latestMs = 0
  const run = async () => {
    const started = performance.now()
    await floor()
    latestMs = performance.now() - started
  }
  return { run, latestMs: () => latestMs }
}

/**
 * A cold no-op run's row, and the nearest figure a Bash or Grep call could reach at this design:
 * the same command through a spawner without HTTP, plus the cold no-op run (the HTTP request, the
 * run and its answer after the same idle), against the call's floor.
 */
export function coldFigures(
  label: string,
  floorName: string,
  floor: number[],
  throughSpawner: number[],
  noop: { cold: number[]; hot: number[] },
  service: number[],
): Figure[] {
  const cold = summarise(noop.cold)
  const hot = summarise(noop.hot)
  const spawner = summarise(throughSpawner)
  return [
    ratioFigure({
      name: `${label}: a no-op run after the same idle as a Bash call (cold), p50`,
      unit: 'ms',
      value: cold.p50,
      baselineName: 'the same no-op run back to back (hot), p50',
      baseline: hot.p50,
      details: { p99Ms: cold.p99, runs: cold.requests, hotP99Ms: hot.p99 },
    }),
    ratioFigure({
      name: `${label}: nearest achievable, through a spawner with no HTTP plus a cold no-op run, p50`,
      unit: 'ms',
      value: spawner.p50 + cold.p50,
      baselineName: floorName,
      baseline: summarise(floor).p50,
      // What the tool's code and its spawner messages add in the service, over this figure.
      details: {
        throughSpawnerP50Ms: spawner.p50,
        coldNoopP50Ms: cold.p50,
        serviceOverNearestMs: Math.round((summarise(service).p50 - spawner.p50 - cold.p50) * 1000) / 1000,
      },
    }),
  ]
}

/**
 * The floors, written out on purpose rather than taken from src/tools/bash: a change to
 * the service's argv must move the service's figure, never its floor (docs/adr/0150 in
 * docs/performance.md, "Separate processes, baselines of the same run").
 */
export const BWRAP_FLOOR = [
  '--ro-bind',
  '/',
  '/',
  '--dev',
  '/dev',
  '--proc',
  '/proc',
  '--unshare-all',
  '--die-with-parent',
]
export const PID_NAMESPACE_FLOOR = [
  '--pdeathsig',
  'KILL',
  'unshare',
  '--pid',
  '--fork',
  '--kill-child',
  '--mount-proc',
  '--',
]

/**
 * Spawns `file args` from this process and resolves once it exited and its pipes closed. With
 * `announces`, fd 3 is a pipe too, as the service gives its wrapper shells (docs/adr/0301).
 */
export function spawnBare(
  file: string,
  args: readonly string[],
  cwd?: string,
  announces = false,
  detached = false,
  unblocks = false,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd,
      detached,
      stdio: ['ignore', 'pipe', 'pipe', ...(announces ? ['pipe' as const] : [])],
    })
    child.stdout?.resume()
    child.stderr?.resume()
    const fd3 = child.stdio[3] as Duplex | null | undefined
    // bubblewrap's `--block-fd 3` byte, as the spawner writes it (docs/adr/0541).
    if (unblocks) fd3?.write('.')
    fd3?.resume()
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}`))))
  })
}
