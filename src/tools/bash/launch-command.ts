import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { LaunchedCommand } from './launched-command.js'
import { spawnTurn } from './spawn-turn.js'
import { connectSpawner, type SpawnerConnection } from './spawner-client.js'

/** Which process forks the commands: the spawner (its pid), or the service itself and why. */
export type LauncherState = { mode: 'spawner'; pid: number } | { mode: 'in-process'; reason: string }

/** A change after start: the spawner was replaced, or commands fall back to in-process spawns. */
export type LauncherChange = { state: LauncherState; event: 'restarted' | 'fallback'; reason: string }

type LaunchOptions = { cwd: string; env: Record<string, string> }

/** More stops than this within the window and the spawner is given up for in-process spawns. */
const MAX_RESTARTS = 3
const RESTART_WINDOW_MS = 60_000

/**
 * In the service's own process, one spawn per event-loop turn (docs/adr/0121-spawn-and-reap-off-the-event-loop.md):
 * what runs when the spawner process cannot.
 */
async function launchInProcess(argv: readonly string[], options: LaunchOptions): Promise<LaunchedCommand> {
  await spawnTurn()
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
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
  return { pid: child.pid, stdout: child.stdout, stderr: child.stderr, exited, closed }
}

/**
 * Starts commands through a spawner process (docs/adr/0160-a-spawner-process-forks-bash.md):
 * started on first use, replaced when it stops (the commands it held end with
 * SpawnerStoppedError), given up for in-process spawns when it cannot start or keeps stopping.
 * `main` replaces the spawner script (tests).
 */
export function createCommandLauncher(options: { main?: string } = {}) {
  let connection: Promise<SpawnerConnection | undefined> | undefined
  let fallback: string | undefined
  const stops: number[] = []
  const listeners = new Set<(change: LauncherChange) => void>()

  const notify = (change: LauncherChange) => {
    for (const listener of listeners) listener(change)
  }

  const connect = (): Promise<SpawnerConnection | undefined> => {
    connection = connectSpawner(options.main).then(
      (spawner) => {
        spawner.stopped.then((reason) => onStopped(reason))
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
      const state: LauncherState = spawner
        ? { mode: 'spawner', pid: spawner.pid }
        : { mode: 'in-process', reason: fallback as string }
      notify({ state, event: spawner ? 'restarted' : 'fallback', reason })
    })
  }

  const current = async (): Promise<SpawnerConnection | undefined> =>
    fallback === undefined ? (connection ?? connect()) : undefined

  return {
    /** Starts the spawner now rather than at the first command, and says which mode is in force. */
    async start(): Promise<LauncherState> {
      const spawner = await current()
      return spawner ? { mode: 'spawner', pid: spawner.pid } : { mode: 'in-process', reason: fallback as string }
    },
    async launch(argv: readonly string[], launchOptions: LaunchOptions): Promise<LaunchedCommand> {
      const spawner = await current()
      if (!spawner) return launchInProcess(argv, launchOptions)
      return spawner.launch(argv[0] as string, argv.slice(1), launchOptions)
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
