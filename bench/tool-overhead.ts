/**
 * What a tool call costs through the service over the tool's own work: one client in flight,
 * `POST /v1/runs` (wait mode) with one call, against a floor this process measures in the same
 * run, call by call in turn. Bash `true` against the same containment spawned bare from Node (sandbox off: `bash -c
 * true`; bubblewrap: `bwrap --ro-bind / / … bash -c true`), Grep against bare `rg` with the
 * tool's own argv, Read, Glob and Edit against a no-op run (ToolSearch) in the same session, each
 * with a row of the nearest figure it could reach: the no-op run plus its own work done bare.
 *
 *   npx tsx bench/tool-overhead.ts [--seconds 10]
 */
import { spawn } from 'node:child_process'
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  realpathSync,
  statSync,
  write,
  writeFileSync,
  writeSync,
} from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { parseArgs, promisify } from 'node:util'
import { globSync } from 'tinyglobby'
import { containedShellArgv, WRAPPER_SHELL } from '../src/tools/bash/containment.js'
import { commandEnvironment, MERGE_STDERR } from '../src/tools/bash/run-shell-command.js'
import { BWRAP_COMMAND, bubblewrapArguments } from '../src/tools/bash/sandbox.js'
import { connectSpawner } from '../src/tools/bash/spawner-client.js'
import { searchArguments } from '../src/tools/grep/grep-arguments.js'
import { noopBatch } from './lib/noop-batch.js'
import { emitFigures, type Figure, ratioFigure } from './lib/report.js'
import { jsonClient, summarise, timeSerially } from './lib/serial-latency.js'
import { REPOSITORY, type ServerProcess, startService } from './lib/server-process.js'

type Measured = { service: number[]; floor: number[] }

/**
 * The service's own argv for Bash `true` started two ways without the service: bare from this
 * process, and through a spawner process of the compiled build (src/tools/bash/spawner-main.ts)
 * launched from here. Against the floor, the first is what the containment itself adds (the
 * namespace's init shell, bubblewrap's layout, the start announce: behaviour, docs/adr/0461,
 * 0384, 0301); the second adds the spawner hop; the service's figure adds the HTTP request and
 * the run. Figures with their floor and no goal: the decomposition of goal 2
 * (docs/adr/0474-the-bash-figures-show-their-decomposition.md). `sameSession` as the service
 * starts the command: a PID-namespace or process-group command in a session of its own
 * (docs/adr/0476), bubblewrap and a search in the spawner's.
 */
async function commandParts(argv: readonly string[], cwd: string, sameSession: boolean) {
  const spawner = await connectSpawner(path.join(REPOSITORY, 'dist/src/tools/bash/spawner-main.js'))
  const env = commandEnvironment()
  const [file = '', ...args] = argv
  const throughSpawner = async () => {
    const launched = await spawner.launch(file, args, { cwd, env, announcesStart: true, sameSession })
    launched.stdout.resume()
    launched.stderr.resume()
    const [code] = await launched.exited
    await launched.closed
    if (code !== 0) throw new Error(`${file} exited with ${code} through the spawner`)
  }
  return { bare: () => spawnBare(file, args, cwd, true, !sameSession), throughSpawner, close: () => spawner.kill() }
}

/** The two rows of commandParts' figures, against `floorName`'s p50. */
function partFigures(label: string, floorName: string, floor: number[], bare: number[], throughSpawner: number[]) {
  const row = (name: string, latencies: number[]) =>
    ratioFigure({
      name,
      unit: 'ms',
      value: summarise(latencies).p50,
      baselineName: floorName,
      baseline: summarise(floor).p50,
      details: { p99Ms: summarise(latencies).p99, runs: latencies.length },
    })
  return [
    row(`${label}: the service's argv spawned bare, p50 (the containment's own cost)`, bare),
    row(`${label}: the service's argv through a spawner, no HTTP, p50 (plus the spawner hop)`, throughSpawner),
  ]
}

/**
 * A no-op run (ToolSearch) posted after the service sat idle as long as before a Bash call: the
 * client first waits the latest floor spawn's latency (a Bash call is posted right after its
 * floor, so the service has been idle that long), then times the run alone, then a second run
 * at once (hot). Each call records its own two latencies; the idle is not timed
 * (docs/adr/0495-the-bash-figures-count-a-cold-no-op-run.md).
 */
function coldNoopRuns(service: ServerProcess, sessionId: string, idleMs: () => number) {
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
function rememberingLatency(floor: () => Promise<void>) {
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
function coldFigures(
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

const BWRAP_FLOOR = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-all', '--die-with-parent']
const PID_NAMESPACE_FLOOR = ['--pdeathsig', 'KILL', 'unshare', '--pid', '--fork', '--kill-child', '--mount-proc', '--']

/**
 * Spawns `file args` from this process and resolves once it exited and its pipes closed. With
 * `announces`, fd 3 is a pipe too, as the service gives its wrapper shells (docs/adr/0301).
 */
function spawnBare(
  file: string,
  args: readonly string[],
  cwd?: string,
  announces = false,
  detached = false,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd,
      detached,
      stdio: ['ignore', 'pipe', 'pipe', ...(announces ? ['pipe' as const] : [])],
    })
    child.stdout?.resume()
    child.stderr?.resume()
    ;(child.stdio[3] as Readable | null | undefined)?.resume()
    child.once('error', reject)
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited with ${code}`))))
  })
}

/** The CPU model as /proc/cpuinfo names it. */
function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

/** A session on `service` whose cwd holds a small tree to search, read and edit. */
async function benchSession(service: ServerProcess) {
  const sessions = jsonClient(`${service.url}/v1/sessions`)
  const created = JSON.parse(
    await sessions.post(JSON.stringify({ cwd: 'bench', permissions: { allow: ['Bash', 'Edit'] } })),
  ) as { session_id: string; cwd: string }
  sessions.close()
  const { cwd } = created
  await mkdir(path.join(cwd, 'src'), { recursive: true })
  for (let index = 0; index < 40; index += 1) {
    const lines = Array.from({ length: 50 }, (_unused, line) => `export const value${line} = ${index * line} // line`)
    if (index % 10 === 0) lines.push('// the needle is here')
    await writeFile(path.join(cwd, 'src', `file-${index}.ts`), `${lines.join('\n')}\n`)
  }
  await writeFile(path.join(cwd, 'edit-me.txt'), 'first alpha line\nsecond line\n')
  return { id: created.session_id, cwd }
}

/** A client posting one-call runs in `session`; each answer is checked to be a success. */
function runClient(service: ServerProcess, sessionId: string) {
  const client = jsonClient(`${service.url}/v1/runs`)
  const run = async (name: string, input: Record<string, unknown>) => {
    const body = JSON.stringify({
      session_id: sessionId,
      tool_uses: [{ type: 'tool_use', id: 'toolu_1', name, input }],
    })
    const answer = JSON.parse(await client.post(body)) as { results: { is_error?: boolean; content: unknown }[] }
    const result = answer.results[0]
    if (!result || result.is_error) throw new Error(`${name} failed: ${JSON.stringify(result?.content)}`)
  }
  return { run, close: client.close }
}

/**
 * `floor` and `service` (and any `others`) one after the other, call by call, for `seconds`
 * after a short warm-up of each: the host's load at any moment weighs on all of them alike.
 */
async function interleave(
  floor: () => Promise<void>,
  service: () => Promise<void>,
  seconds: number,
  others: (() => Promise<void>)[] = [],
): Promise<Measured & { others: number[][] }> {
  const all = [floor, service, ...others]
  for (const run of all) await timeSerially(run, 0.3)
  const latencies: number[][] = all.map(() => [])
  const until = performance.now() + seconds * 1000
  while (performance.now() < until) {
    for (const [index, run] of all.entries()) latencies[index]?.push(...(await timeSerially(run, 0)))
  }
  const [floorLatencies = [], serviceLatencies = [], ...rest] = latencies
  return { floor: floorLatencies, service: serviceLatencies, others: rest }
}

function figure(name: string, baselineName: string, measured: Measured, atMost: number, extra = {}): Figure {
  const service = summarise(measured.service)
  const floor = summarise(measured.floor)
  return ratioFigure({
    name,
    unit: 'ms',
    value: service.p50,
    baselineName,
    baseline: floor.p50,
    goal: { atMost },
    details: {
      p99Ms: service.p99,
      calls: service.requests,
      floorP99Ms: floor.p99,
      floorRuns: floor.requests,
      ...extra,
    },
  })
}

/** Glob's crawl of the bench tree with the tool's library and options, newest first by lstat. */
function crawlNewestFirst(cwd: string) {
  const files = globSync('src/**/*.ts', {
    cwd,
    absolute: true,
    dot: true,
    followSymbolicLinks: false,
    expandDirectories: false,
    ignore: ['**/.git/**'],
  })
  return files.map((file) => ({ file, mtimeMs: lstatSync(file).mtimeMs })).sort((a, b) => b.mtimeMs - a.mtimeMs)
}

/**
 * The job each file tool does, done bare from this process with the same calls a tool needs and
 * nothing around them (no run, no HTTP, no confinement): what the tool cannot do without
 * (docs/adr/0464-file-tools-have-an-own-work-floor.md). Glob crawls synchronously with the tool's
 * library and options, as the tool crawls a small tree (docs/adr/0465-small-crawls-run-synchronously.md).
 */
function fileToolsOwnWork(cwd: string): Record<string, () => Promise<void>> {
  const readPath = path.join(cwd, 'src/file-1.ts')
  // A file of its own: a bare write to the Edit call's file would fail the call's read-before-write check.
  const editPath = path.join(cwd, 'edit-bare.txt')
  writeFileSync(editPath, 'first alpha line\nsecond line\n')
  return {
    Read: async () => {
      const fd = openSync(readPath, 'r')
      const size = fstatSync(fd).size
      const buffer = Buffer.allocUnsafe(size + 1)
      const length = readSync(fd, buffer, 0, size + 1, 0)
      closeSync(fd)
      const lines = buffer.subarray(0, length).toString('utf8').split('\n')
      lines.map((line, index) => `${String(index + 1).padStart(6)}\t${line}`).join('\n')
    },
    Glob: async () => {
      crawlNewestFirst(cwd)
    },
    // Replaces a word with one of its own length: the file's content stays what the Edit call expects.
    Edit: async () => {
      const fd = openSync(editPath, 'r+')
      const size = fstatSync(fd).size
      const buffer = Buffer.allocUnsafe(size + 1)
      const text = buffer.subarray(0, readSync(fd, buffer, 0, size + 1, 0)).toString('utf8')
      const at = text.indexOf('line')
      writeSync(fd, Buffer.from(`${text.slice(0, at)}line${text.slice(at + 4)}`), 0)
      closeSync(fd)
      statSync(editPath)
    },
  }
}

/** Linux's O_PATH, as src/paths/open-inside.ts names a checked file before it opens it. */
const O_PATH = 0o10000000

/** The checked open of an existing file (docs/adr/0468): named with O_PATH, verified by the kernel's name, reopened. */
function checkedOpen(realPath: string, flags: number): number {
  const named = openSync(realPath, O_PATH | constants.O_NOFOLLOW)
  try {
    if (readlinkSync(`/proc/self/fd/${named}`) !== realPath) throw new Error(`${realPath} moved`)
    return openSync(`/proc/self/fd/${named}`, flags | constants.O_NONBLOCK)
  } finally {
    closeSync(named)
  }
}

/**
 * Each file tool's own work (as fileToolsOwnWork) plus the system calls its contracts require,
 * done bare from this process in the order the service makes them: the workspace root's, the
 * cwd's and the path's realpath (the working directories checked per call, docs/adr/0090; the
 * path confined, 0091), validation's stat and the permission decision's (docs/adr/0466), the
 * checked open (0468); Edit also its validation's read of the file (0386), the call's re-check of
 * the file's state and the read-before-write record's stat, and its write through the threadpool
 * (docs/adr/0481). Against a no-op run, the nearest figure this design allows
 * (docs/adr/0469-file-tools-print-their-floor-at-this-design.md).
 */
function fileToolsDesignWork(cwd: string): Record<string, () => Promise<void>> {
  const root = path.dirname(cwd)
  const readPath = path.join(cwd, 'src/file-1.ts')
  const editPath = path.join(cwd, 'edit-design.txt')
  writeFileSync(editPath, 'first alpha line\nsecond line\n')
  const confined = (target: string) => {
    realpathSync.native(root)
    realpathSync.native(cwd)
    return realpathSync.native(target)
  }
  const readWhole = (fd: number) => {
    const size = fstatSync(fd).size
    const buffer = Buffer.allocUnsafe(size + 1)
    return buffer.subarray(0, readSync(fd, buffer, 0, size + 1, 0)).toString('utf8')
  }
  const writeAt = promisify(write)
  return {
    Read: async () => {
      const real = confined(readPath)
      statSync(real)
      statSync(real)
      const fd = checkedOpen(real, constants.O_RDONLY)
      const text = readWhole(fd)
      closeSync(fd)
      text
        .split('\n')
        .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
        .join('\n')
    },
    Glob: async () => {
      const real = confined(cwd)
      statSync(real)
      crawlNewestFirst(real)
    },
    // Replaces a word with one of its own length, as fileToolsOwnWork does.
    Edit: async () => {
      const real = confined(editPath)
      statSync(real)
      const check = openSync(real, constants.O_RDONLY | constants.O_NONBLOCK)
      readWhole(check).indexOf('line')
      closeSync(check)
      statSync(real)
      statSync(real)
      const fd = checkedOpen(real, constants.O_RDWR)
      const text = readWhole(fd)
      const at = text.indexOf('line')
      const bytes = Buffer.from(`${text.slice(0, at)}line${text.slice(at + 4)}`)
      await writeAt(fd, bytes, 0, bytes.length, 0)
      fstatSync(fd)
      closeSync(fd)
      statSync(real)
    },
  }
}

/** A no-op run plus the tool's work and its contracts' checks done bare: the nearest figure at this design. */
function nearestAtThisDesign(name: string, noop: number[], designWork: number[]): Figure {
  const noopP50 = summarise(noop).p50
  const work = summarise(designWork)
  return ratioFigure({
    name: `${name}: nearest at this design, a no-op run plus the tool's work and its contracts' checks done bare, p50`,
    unit: 'ms',
    value: noopP50 + work.p50,
    baselineName: 'no-op run (ToolSearch) in the same session, p50',
    baseline: noopP50,
    details: { designWorkP50Ms: work.p50, designWorkRuns: work.requests },
  })
}

/**
 * Read of a one-line file through the service, beside the 50-line Read: the difference is what
 * the result's size costs (numbering, the answer carrying it twice, in `results` and
 * `message.content`, the socket, the client's parse), the rest what a Read costs whatever it
 * returns (docs/adr/0469-file-tools-print-their-floor-at-this-design.md).
 */
async function fileToolsSmallCalls(
  client: ReturnType<typeof runClient>,
  cwd: string,
): Promise<Record<string, () => Promise<void>>> {
  const small = path.join(cwd, 'one-line.txt')
  await writeFile(small, 'export const value = 1\n')
  return { Read: () => client.run('Read', { file_path: small }) }
}

function smallCallFigure(name: string, noop: number[], small: number[]): Figure {
  return ratioFigure({
    name: `${name} of a one-line file: p50, one client in flight (the call without its result's size)`,
    unit: 'ms',
    value: summarise(small).p50,
    baselineName: 'no-op run (ToolSearch) in the same session, p50',
    baseline: summarise(noop).p50,
    details: { p99Ms: summarise(small).p99, calls: small.length },
  })
}

/** A no-op run plus the tool's own work done bare: the figure the tool's call could reach at best. */
function nearestAchievable(name: string, noop: number[], ownWork: number[]): Figure {
  const noopP50 = summarise(noop).p50
  const own = summarise(ownWork)
  return ratioFigure({
    name: `${name}: nearest achievable, a no-op run plus the tool's own work done bare, p50`,
    unit: 'ms',
    value: noopP50 + own.p50,
    baselineName: 'no-op run (ToolSearch) in the same session, p50',
    baseline: noopP50,
    details: { ownWorkP50Ms: own.p50, ownWorkRuns: own.requests },
  })
}

export async function toolOverhead(seconds: number): Promise<Figure[]> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-tools-'))
  const figures: Figure[] = []
  const off = await startService(path.join(scratch, 'off'))
  try {
    const session = await benchSession(off)
    const client = runClient(off, session.id)
    const readyz = (await (await fetch(`${off.url}/readyz`)).json()) as { bash_containment?: string }
    const containment = readyz.bash_containment ?? 'unknown'
    const bashTrue = () => client.run('Bash', { command: 'true' })
    // The same containment as the service's, spawned bare: what the namespace itself costs.
    // In a session of its own, as the service starts it without bubblewrap (docs/adr/0476).
    const offParts = await commandParts(
      containedShellArgv(containment === 'pid-namespace' ? 'pid-namespace' : 'process-group', MERGE_STDERR, 'true'),
      session.cwd,
      false,
    )
    const sameContainment =
      containment === 'pid-namespace'
        ? [() => spawnBare('setpriv', [...PID_NAMESPACE_FLOOR, 'bash', '-c', 'true'])]
        : []
    const offFloor = rememberingLatency(() => spawnBare('bash', ['-c', 'true']))
    const offNoop = coldNoopRuns(off, session.id, offFloor.latestMs)
    const offMeasured = await interleave(offFloor.run, bashTrue, seconds, [
      offNoop.run,
      ...sameContainment,
      offParts.bare,
      offParts.throughSpawner,
    ]).finally(() => {
      offParts.close()
      offNoop.close()
    })
    const [, ...offOthers] = offMeasured.others
    const [namespaceFloor, offBare = [], offThroughSpawner = []] =
      offOthers.length === 3 ? offOthers : [undefined, ...offOthers]
    figures.push(
      figure(
        'Bash `true`, sandbox off: p50, one client in flight',
        'bare `bash -c true` from Node, p50',
        offMeasured,
        1.15,
        {
          containment,
          ...(namespaceFloor ? { sameContainmentFloorP50Ms: summarise(namespaceFloor).p50 } : {}),
        },
      ),
    )
    if (namespaceFloor) {
      figures.push(
        figure(
          'Bash `true`, sandbox off, PID namespace: p50, one client in flight',
          'bare `setpriv --pdeathsig KILL unshare --pid --fork --kill-child --mount-proc -- bash -c true` from Node, p50',
          { service: offMeasured.service, floor: namespaceFloor },
          1.15,
        ),
      )
    }
    figures.push(
      ...partFigures(
        'Bash `true`, sandbox off',
        namespaceFloor ? 'the same PID namespace bare, p50' : 'bare `bash -c true`, p50',
        namespaceFloor ?? offMeasured.floor,
        offBare,
        offThroughSpawner,
      ),
      ...coldFigures(
        'Bash `true`, sandbox off',
        namespaceFloor ? 'the same PID namespace bare, p50' : 'bare `bash -c true`, p50',
        namespaceFloor ?? offMeasured.floor,
        offThroughSpawner,
        offNoop.measured(offMeasured.service.length),
        offMeasured.service,
      ),
    )

    const grepInput = { pattern: 'needle', path: session.cwd }
    const rgArgs = searchArguments('rg', {
      pattern: 'needle',
      path: session.cwd,
      outputMode: 'files_with_matches',
      caseInsensitive: false,
      lineNumbers: true,
      multiline: false,
    })
    // The same search through a spawner from here: the hop without the HTTP request and the tool's code.
    const grepParts = await commandParts(['rg', ...rgArgs], session.cwd, true)
    const grepFloor = rememberingLatency(() => spawnBare('rg', rgArgs, session.cwd))
    const grepNoop = coldNoopRuns(off, session.id, grepFloor.latestMs)
    const grepMeasured = await interleave(grepFloor.run, () => client.run('Grep', grepInput), seconds, [
      grepNoop.run,
      grepParts.throughSpawner,
    ]).finally(() => {
      grepParts.close()
      grepNoop.close()
    })
    figures.push(
      figure(
        'Grep, 40 files: p50, one client in flight',
        'bare `rg` with the same argv from Node, p50',
        grepMeasured,
        1.1,
      ),
      ratioFigure({
        name: 'Grep, 40 files: the same `rg` through a spawner, no HTTP, p50 (the spawner hop)',
        unit: 'ms',
        value: summarise(grepMeasured.others[1] ?? []).p50,
        baselineName: 'bare `rg` with the same argv from Node, p50',
        baseline: summarise(grepMeasured.floor).p50,
      }),
      ...coldFigures(
        'Grep, 40 files',
        'bare `rg` with the same argv from Node, p50',
        grepMeasured.floor,
        grepMeasured.others[1] ?? [],
        grepNoop.measured(grepMeasured.service.length),
        grepMeasured.service,
      ),
    )

    const noop = jsonClient(`${off.url}/v1/runs`)
    const noopBody = noopBatch(1, { session_id: session.id })
    const noopRun = async () => {
      await noop.post(noopBody)
    }
    const file = path.join(session.cwd, 'edit-me.txt')
    await client.run('Read', { file_path: file })
    let flip = false
    const tools: [string, () => Promise<void>][] = [
      ['Read', () => client.run('Read', { file_path: path.join(session.cwd, 'src/file-1.ts') })],
      ['Glob', () => client.run('Glob', { pattern: 'src/**/*.ts' })],
      [
        'Edit',
        () => {
          flip = !flip
          return client.run('Edit', {
            file_path: file,
            old_string: flip ? 'alpha' : 'omega',
            new_string: flip ? 'omega' : 'alpha',
          })
        },
      ],
    ]
    const ownWork = fileToolsOwnWork(session.cwd)
    const designWork = fileToolsDesignWork(session.cwd)
    const smallCalls = await fileToolsSmallCalls(client, session.cwd)
    for (const [name, call] of tools) {
      // The smaller call right after the tool's own, before the bare parts: both meet a service
      // that has just answered, as the no-op run does.
      const small = smallCalls[name]
      const parts = [...(small ? [small] : []), ownWork[name], designWork[name]].filter((part) => part !== undefined)
      const measured = await interleave(noopRun, call, seconds, parts)
      const [smallLatencies, own = [], design = []] = small ? measured.others : [undefined, ...measured.others]
      figures.push(
        figure(`${name}: p50, one client in flight`, 'no-op run (ToolSearch) in the same session, p50', measured, 1.2),
      )
      figures.push(nearestAchievable(name, measured.floor, own))
      figures.push(nearestAtThisDesign(name, measured.floor, design))
      if (smallLatencies) figures.push(smallCallFigure(name, measured.floor, smallLatencies))
    }
    noop.close()
    client.close()
  } finally {
    await off.stop()
  }

  // The cold start (goal 2): warm sandboxes have their own figure, bench/warm-sandboxes.ts.
  const sandboxed = await startService(path.join(scratch, 'bwrap'), {
    TOOLEXEC_SANDBOX: 'bwrap',
    TOOLEXEC_WARM_SANDBOXES: '0',
  }).catch((error: Error) => error)
  if (sandboxed instanceof Error) {
    console.log(`bubblewrap figure skipped: ${sandboxed.message}`)
  } else {
    try {
      const session = await benchSession(sandboxed)
      const client = runClient(sandboxed, session.id)
      // The layout of a session's call: its cwd writable, a blob directory read-only.
      const blobs = await mkdtemp(path.join(scratch, 'blobs-'))
      const layout = { cwd: session.cwd, writableDirectories: [session.cwd], readOnlyDirectories: [blobs] }
      const parts = await commandParts(
        [BWRAP_COMMAND, ...bubblewrapArguments(layout), WRAPPER_SHELL, '-c', MERGE_STDERR, 'sh', 'true'],
        session.cwd,
        true,
      )
      const floor = rememberingLatency(() => spawnBare('bwrap', [...BWRAP_FLOOR, 'bash', '-c', 'true']))
      const noop = coldNoopRuns(sandboxed, session.id, floor.latestMs)
      const measured = await interleave(floor.run, () => client.run('Bash', { command: 'true' }), seconds, [
        noop.run,
        parts.bare,
        parts.throughSpawner,
      ]).finally(() => {
        parts.close()
        noop.close()
      })
      figures.push(
        figure(
          'Bash `true`, bubblewrap: p50, one client in flight',
          'bare `bwrap --ro-bind / / --dev /dev --proc /proc --unshare-all --die-with-parent bash -c true`, p50',
          measured,
          1.15,
        ),
        ...partFigures(
          'Bash `true`, bubblewrap',
          'the bare `bwrap --ro-bind / / …` floor, p50',
          measured.floor,
          measured.others[1] ?? [],
          measured.others[2] ?? [],
        ),
        ...coldFigures(
          'Bash `true`, bubblewrap',
          'the bare `bwrap --ro-bind / / …` floor, p50',
          measured.floor,
          measured.others[2] ?? [],
          noop.measured(measured.service.length),
          measured.service,
        ),
      )
      client.close()
    } finally {
      await sandboxed.stop()
    }
  }
  await rm(scratch, { recursive: true, force: true })
  console.log(`CPU: ${cpuModel()}`)
  return figures.map((entry) => ({ ...entry, details: { ...entry.details, cpu: cpuModel() } }))
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '10' } },
  })
  emitFigures(await toolOverhead(Number(values.seconds)))
}
