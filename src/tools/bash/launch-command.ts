import { spawn } from 'node:child_process'
import { once } from 'node:events'
import os from 'node:os'
import type { Readable } from 'node:stream'
import type { LaunchedCommand } from './launched-command.js'
import { autogroupInForce, lowerPriority, type ProcessPriority } from './process-priority.js'
import { spawnTurn } from './spawn-turn.js'
import { NATIVE_SPAWNER, nativeSpawnerMissing, type SpawnerChoice, type SpawnerKind } from './spawner-choice.js'
import { connectSpawner, type SpawnerConnection } from './spawner-client.js'
import { CEILING_PER_CORE, createStartPace, type DelayReader, type StartPaceState } from './start-pace.js'
import { createStartPacer } from './start-pacer.js'
import { NODE_SPAWNER } from './start-spawner-process.js'

/**
 * Which process forks the commands: the spawner (its pid, which one, and why not the native one
 * when that was wanted: docs/adr/0501-choosing-the-spawner.md), or the service itself and why.
 */
export type LauncherState =
  | { mode: 'spawner'; pid: number; spawner: SpawnerKind; reason?: string }
  | { mode: 'in-process'; reason: string }

/** A change after start: the spawner was replaced, or commands fall back to in-process spawns. */
export type LauncherChange = { state: LauncherState; event: 'restarted' | 'fallback'; reason: string }

type LaunchOptions = {
  cwd: string
  env: Record<string, string>
  /** Aborted while the start waits its turn: it leaves the queue (StartCancelledError). */
  signal?: AbortSignal | undefined
  /** The command writes a byte to fd 3 once under way (spawner-protocol.ts): its start lasts until then. */
  announcesStart?: boolean | undefined
  /** Its stdin a pipe written once by `input` (a warm sandbox, docs/adr/0390-warm-sandboxes.md). */
  takesInput?: boolean | undefined
  /**
   * No session and process group of its own: its containment holds its processes (bubblewrap's
   * PID namespace, a single program), and it is stopped by `LaunchedCommand.signal`
   * (docs/adr/0460-commands-start-without-a-session-of-their-own.md).
   */
  sameSession?: boolean | undefined
  /** With `announcesStart`: fd 4 a pipe for bubblewrap's `--json-status-fd 4` (docs/adr/0473). */
  reportsStatus?: boolean | undefined
}

/**
 * How the commands share the host with the service (TOOLEXEC_PROCESS_NICE, TOOLEXEC_SPAWNER, and
 * TOOLEXEC_MAX_STARTING_PROCESSES: a number pins the start limit, none lets it adapt, docs/adr/0506).
 */
export type ProcessSettings = { nice: number; maxStarting?: number | undefined; spawner?: SpawnerChoice | undefined }

/** What is in force for the processes the service starts, for /readyz and the start log. */
export type ProcessesState = ProcessPriority & {
  /** The kernel's autogroup scheduling gives each command session its own CPU share (process-priority.ts). */
  autogroup: boolean
  /** Which process starts them: the native spawner, the Node one, or the service itself (docs/adr/0501). */
  spawner: SpawnerKind | 'in-process'
  /** The start limit in force now; `pacing` says whether it is pinned or adapts between its floor and ceiling. */
  maxStarting: number
  starting: number
  queued: number
} & StartPaceState

/**
 * Defaults (config-schema.ts has the service's): ten steps below the service; a start limit that
 * adapts between a start per core and CEILING_PER_CORE per core (docs/adr/0506, 0507).
 */
const DEFAULT_PROCESS_NICE = 10
const adaptiveBounds = (): [number, number] => {
  const cores = os.availableParallelism()
  return [cores, cores * CEILING_PER_CORE]
}

/** Pins the limit, or lets it adapt when `maxStarting` is undefined. */
function applyMaxStarting(pace: ReturnType<typeof createStartPace>, maxStarting: number | undefined): void {
  if (maxStarting === undefined) pace.adapt(...adaptiveBounds())
  else pace.pin(maxStarting)
}

/**
 * A start that has not announced itself within this long (a sandbox stuck in its setup) stops
 * holding a turn, so that it cannot hold up every later start until its timeout.
 */
const START_HOLD_MAX_MS = 5_000

/** Resolves when `started` does, or after START_HOLD_MAX_MS. */
function heldAtMost(started: Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, START_HOLD_MAX_MS)
    timer.unref()
    started.then(() => {
      clearTimeout(timer)
      resolve()
    })
  })
}

/** More stops than this within the window and the spawner is given up for in-process spawns. */
const MAX_RESTARTS = 3
const RESTART_WINDOW_MS = 60_000

/**
 * In the service's own process, one spawn per event-loop turn (docs/adr/0121-spawn-and-reap-off-the-event-loop.md):
 * what runs when the spawner process cannot.
 */
async function launchInProcess(
  argv: readonly string[],
  options: LaunchOptions,
  nice: number,
): Promise<LaunchedCommand & { priority: ProcessPriority }> {
  await spawnTurn()
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    // Always a session of its own here, `sameSession` or not: in the service's group a terminal's
    // Ctrl-C would reach the command while the service drains. `signal` works either way.
    detached: true,
    stdio: [
      options.takesInput ? 'pipe' : 'ignore',
      'pipe',
      'pipe',
      ...(options.announcesStart ? ['pipe' as const] : []),
      ...(options.announcesStart && options.reportsStatus ? ['pipe' as const] : []),
    ],
  })
  // In process, the child's own exit says the end: the status is not needed.
  ;(child.stdio[4] as Readable | null | undefined)?.resume()
  child.stdin?.on('error', () => undefined)
  // Listened for at once: `close` may come before anything awaits it.
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  const closed = once(child, 'close').then(() => undefined)
  closed.catch(() => undefined)
  // No pid: the 'error' (ENOENT, EACCES…) follows, and `exited` rejects with it.
  if (child.pid === undefined)
    throw await exited.then(
      () => new Error(`spawn ${argv[0]}: no process`),
      (error) => error,
    )
  // Right after the exec: what the command forks from then on inherits the lower priority.
  const priority = lowerPriority(child.pid, nice)
  const started = startAnnounced(child.stdio[3] as Readable | null | undefined, exited)
  const { stdout, stderr } = child as { stdout: Readable; stderr: Readable }
  const stdin = child.stdin
  const input = stdin ? { input: (data: string) => void stdin.end(data) } : {}
  // Node's kill does nothing once it reaped the process.
  const signal = (name: NodeJS.Signals) => void child.kill(name)
  return { pid: child.pid, signal, stdout, stderr, exited, closed, started, priority, ...input }
}

/** Resolves at the first byte on the announcing pipe, at its end, or at the exit, whichever comes first. */
function startAnnounced(announcer: Readable | null | undefined, exited: Promise<unknown>): Promise<void> {
  if (!announcer) return Promise.resolve()
  const ended = exited.then(
    () => undefined,
    () => undefined,
  )
  return Promise.race([
    ended,
    new Promise<void>((resolve) => {
      for (const event of ['data', 'end', 'error']) announcer.once(event, () => resolve())
    }),
  ]).finally(() => announcer.destroy())
}

/**
 * Starts commands through a spawner process (docs/adr/0160-a-spawner-process-forks-bash.md):
 * started on first use, replaced when it stops (the commands it held end with
 * SpawnerStoppedError), given up for in-process spawns when it cannot start or keeps stopping.
 * The spawner, and so every command it forks, runs at a lower CPU priority than the service
 * (docs/adr/0300-commands-run-at-a-lower-cpu-priority.md); starts are paced
 * (docs/adr/0301-process-starts-are-paced.md). `main` replaces the spawner script, `nativeSpawner`
 * the native spawner's path (tests).
 */
export function createCommandLauncher(
  options: { main?: string; nativeSpawner?: string; readDelay?: DelayReader } & Partial<ProcessSettings> = {},
) {
  const native = options.nativeSpawner ?? NATIVE_SPAWNER
  let connection: Promise<SpawnerConnection | undefined> | undefined
  let choice: SpawnerChoice = options.spawner ?? 'auto'
  /** The kind of the spawner connected last, and why it is not the native one when that was wanted. */
  let kind: SpawnerKind = 'node'
  let kindReason: string | undefined
  let fallback: string | undefined
  let nice = options.nice ?? DEFAULT_PROCESS_NICE
  const pacer = createStartPacer(os.availableParallelism())
  const pace = createStartPace(pacer, options.readDelay)
  applyMaxStarting(pace, options.maxStarting)
  let autogroup: boolean | undefined
  let priority: ProcessPriority = {
    nice: os.getPriority(),
    serviceNice: os.getPriority(),
    reason: 'no process started yet',
  }
  const stops: number[] = []
  const listeners = new Set<(change: LauncherChange) => void>()

  const notify = (change: LauncherChange) => {
    for (const listener of listeners) listener(change)
  }

  /**
   * The native spawner where wanted and built, the Node one when it is not or cannot start
   * (docs/adr/0501-choosing-the-spawner.md); `main` (tests) is taken as it is.
   */
  const connectChosen = async (): Promise<SpawnerConnection> => {
    if (options.main !== undefined) {
      kind = /\.[cm]?[jt]s$/.test(options.main) ? 'node' : 'native'
      return connectSpawner(options.main)
    }
    const missing = choice === 'node' ? 'TOOLEXEC_SPAWNER=node' : nativeSpawnerMissing(native)
    if (missing === undefined) {
      try {
        const spawner = await connectSpawner(native)
        kind = 'native'
        kindReason = undefined
        return spawner
      } catch (error) {
        kindReason = `the native spawner could not start: ${(error as Error).message}`
      }
    } else {
      kindReason = choice === 'node' ? undefined : missing
    }
    kind = 'node'
    return connectSpawner(NODE_SPAWNER)
  }

  const stateOf = (spawner: SpawnerConnection): LauncherState => ({
    mode: 'spawner',
    pid: spawner.pid,
    spawner: kind,
    ...(kindReason === undefined ? {} : { reason: kindReason }),
  })

  const connect = (): Promise<SpawnerConnection | undefined> => {
    connection = connectChosen().then(
      (spawner) => {
        spawner.stopped.then((reason) => onStopped(reason))
        priority = lowerPriority(spawner.pid, nice)
        return spawner
      },
      (error: Error) => {
        fallback = `the spawner process could not start: ${error.message}`
        return undefined
      },
    )
    return connection
  }

  const onStopped = (reason: string) => {
    const now = Date.now()
    stops.push(now)
    while ((stops[0] as number) < now - RESTART_WINDOW_MS) stops.shift()
    if (stops.length > MAX_RESTARTS) {
      fallback = `the spawner process stopped ${stops.length} times within ${RESTART_WINDOW_MS / 1000} s, last by ${reason}`
      connection = undefined
      notify({ state: { mode: 'in-process', reason: fallback }, event: 'fallback', reason })
      return
    }
    connect().then((spawner) => {
      const state: LauncherState = spawner ? stateOf(spawner) : { mode: 'in-process', reason: fallback as string }
      notify({ state, event: spawner ? 'restarted' : 'fallback', reason })
    })
  }

  const current = async (): Promise<SpawnerConnection | undefined> =>
    fallback === undefined ? (connection ?? connect()) : undefined

  return {
    /** The settings in force for the starts asked for from now on. */
    async configure(settings: ProcessSettings): Promise<void> {
      applyMaxStarting(pace, settings.maxStarting)
      // Taken by the next spawner started (the first, or a restart); one running keeps its kind.
      if (settings.spawner !== undefined) choice = settings.spawner
      if (settings.nice === nice) return
      nice = settings.nice
      // A spawner already running (an earlier app of this process) takes the new priority too;
      // its commands started before keep theirs.
      const running = fallback === undefined && connection ? await connection : undefined
      if (running) priority = lowerPriority(running.pid, nice)
    },
    /** Starts the spawner now rather than at the first command, and says which mode is in force. */
    async start(): Promise<LauncherState> {
      const spawner = await current()
      return spawner ? stateOf(spawner) : { mode: 'in-process', reason: fallback as string }
    },
    launch(argv: readonly string[], launchOptions: LaunchOptions): Promise<LaunchedCommand> {
      pace.starting()
      return pacer.run(
        async () => {
          const spawner = await current()
          if (spawner) return spawner.launch(argv[0] as string, argv.slice(1), launchOptions)
          const { priority: applied, ...launched } = await launchInProcess(argv, launchOptions, nice)
          priority = applied
          return launched
        },
        { signal: launchOptions.signal, holdUntil: (launched) => heldAtMost(launched.started) },
      )
    },
    /** The priority and pacing in force, and the starts under way and waiting now. */
    processes(): ProcessesState {
      autogroup ??= autogroupInForce()
      const spawner = fallback === undefined && connection ? kind : 'in-process'
      return {
        ...priority,
        autogroup,
        spawner,
        maxStarting: pacer.limit,
        starting: pacer.starting,
        queued: pacer.queued,
        ...pace.state(),
      }
    },
    /** Called on each restart or fallback after start; returns the unsubscribe. */
    onChange(listener: (change: LauncherChange) => void): () => void {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}

/** The service's one launcher: every Bash command of this process starts through it. */
export const commandLauncher = createCommandLauncher()
