import os from 'node:os'
import { type LaunchOptions, launchInProcess } from './launch-in-process.js'
import type { LaunchedCommand } from './launched-command.js'
import type { LauncherChange, LauncherState, ProcessesState, ProcessSettings } from './launcher-state.js'
import { autogroupInForce, lowerAutogroup, lowerPriority, type ProcessPriority } from './process-priority.js'
import { NATIVE_SPAWNER, nativeSpawnerMissing, type SpawnerChoice, type SpawnerKind } from './spawner-choice.js'
import { connectSpawner, type SpawnerConnection } from './spawner-client.js'
import { holdTurnUntilStarted } from './start-hold.js'
import { createStartPace, type DelayReader, pinOrAdaptStartLimit } from './start-pace.js'
import { createStartPacer } from './start-pacer.js'
import { NODE_SPAWNER } from './start-spawner-process.js'

/** The service's default (config-schema.ts has its own): ten steps below the service. */
const DEFAULT_PROCESS_NICE = 10

/** More stops than this within the window and the spawner is given up for in-process spawns. */
const MAX_RESTARTS = 3
const RESTART_WINDOW_MS = 60_000

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
  pinOrAdaptStartLimit(pace, options.maxStarting)
  let autogroup: boolean | undefined
  /** The spawner session's autogroup nice once set (docs/adr/0578), and whether its commands share that session (0576). */
  let autogroupNice: number | null = null
  let processGroups = false
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

  /**
   * The spawner's priority, and under autogroup its session's too: there its commands share that
   * session (docs/adr/0576), which otherwise weighs as much as the service's whatever their nice.
   */
  const lowerSpawner = async (spawner: SpawnerConnection): Promise<void> => {
    priority = lowerPriority(spawner.pid, nice)
    processGroups = spawner.features.has('process-groups')
    autogroup ??= autogroupInForce()
    autogroupNice = autogroup ? (await lowerAutogroup(spawner.pid, priority.nice)).nice : null
  }

  const connect = (): Promise<SpawnerConnection | undefined> => {
    connection = connectChosen().then(
      async (spawner) => {
        spawner.stopped.then((reason) => onStopped(reason))
        await lowerSpawner(spawner)
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
      pinOrAdaptStartLimit(pace, settings.maxStarting)
      // Taken by the next spawner started (the first, or a restart); one running keeps its kind.
      if (settings.spawner !== undefined) choice = settings.spawner
      if (settings.nice === nice) return
      nice = settings.nice
      // A spawner already running (an earlier app of this process) takes the new priority too;
      // its commands started before keep theirs.
      const running = fallback === undefined && connection ? await connection : undefined
      if (running) await lowerSpawner(running)
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
          if (spawner) {
            // The native spawner as the namespace's init, where it says it can (docs/adr/0555).
            const { namespacedArgv, direct: _direct, ...rest } = launchOptions
            if (namespacedArgv && spawner.features.has('pid-namespace'))
              return spawner.launch(namespacedArgv[0] as string, namespacedArgv.slice(1), {
                ...rest,
                pidNamespace: true,
              })
            const direct = usableDirect(spawner, launchOptions.direct)
            if (!direct) return spawner.launch(argv[0] as string, argv.slice(1), rest)
            return spawner.launch(direct.argv[0] as string, direct.argv.slice(1), {
              cwd: launchOptions.cwd,
              env: launchOptions.env,
              sameSession: launchOptions.sameSession,
              mergesStderr: true,
              announcesStart: direct.unblocksStart,
              unblocksStart: direct.unblocksStart,
            })
          }
          const { priority: applied, ...launched } = await launchInProcess(argv, launchOptions, nice)
          priority = applied
          return launched
        },
        { signal: launchOptions.signal, holdUntil: holdTurnUntilStarted },
      )
    },
    /** The priority and pacing in force, and the starts under way and waiting now. */
    processes(): ProcessesState {
      autogroup ??= autogroupInForce()
      const spawner = fallback === undefined && connection ? kind : 'in-process'
      const grouped = spawner !== 'in-process' && processGroups
      return {
        ...priority,
        autogroup,
        commandGroups: grouped ? 'process-group' : 'session',
        autogroupNice: spawner === 'in-process' ? null : autogroupNice,
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

/** The wrapper-less form, when this spawner named every feature it needs (docs/adr/0542). */
export function usableDirect(spawner: SpawnerConnection, direct: LaunchOptions['direct']): LaunchOptions['direct'] {
  if (!direct || !spawner.features.has('merge-stderr')) return undefined
  return direct.unblocksStart && !spawner.features.has('block-fd') ? undefined : direct
}

/** The service's one launcher: every Bash command of this process starts through it. */
export const commandLauncher = createCommandLauncher()
