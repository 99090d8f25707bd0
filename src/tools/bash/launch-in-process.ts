import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { Readable } from 'node:stream'
import type { LaunchedCommand } from './launched-command.js'
import { lowerPriority, type ProcessPriority } from './process-priority.js'
import { spawnTurn } from './spawn-turn.js'

/** What a launch asks for, wherever the command is forked (the spawner or the service itself). */
export type LaunchOptions = {
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
  /**
   * The same command without its wrapper shell, run instead where the spawner merges stderr itself
   * and, with `unblocksStart`, hands bubblewrap its `--block-fd 3` byte (docs/adr/0540, 0541,
   * 0542); `argv` runs everywhere else (the Node spawner, an older native build, in process).
   */
  direct?: { argv: readonly string[]; unblocksStart: boolean } | undefined
  /**
   * With the sandbox off: this argv (`bash -c COMMAND`) is started instead, in a PID namespace
   * whose init is the native spawner itself, when the spawner in force can
   * (docs/adr/0555-the-native-spawner-is-the-pid-namespace-init.md). Elsewhere it is ignored.
   */
  namespacedArgv?: readonly string[] | undefined
}

/**
 * In the service's own process, one spawn per event-loop turn (docs/adr/0121-spawn-and-reap-off-the-event-loop.md):
 * what runs when the spawner process cannot.
 */
export async function launchInProcess(
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
