import { deferred } from '../../async/deferred.js'
import { type Containment, containedShellArgv, WRAPPER_SHELL } from './containment.js'
import { killCommand, killProcessGroup } from './kill-process-group.js'
import { commandLauncher } from './launch-command.js'
import type { LaunchOptions } from './launch-in-process.js'
import type { LaunchedCommand } from './launched-command.js'
import type { OutputCollector } from './output-collector.js'
import { BWRAP_COMMAND, bubblewrapArguments, type SandboxLayout } from './sandbox.js'
import { type WarmOwner, warmSandboxes } from './warm-sandboxes.js'

export type ShellRunOptions = {
  command: string
  cwd: string
  timeoutMs: number
  signal: AbortSignal
  /** Receives stdout and stderr, merged in the order the command wrote them. */
  output: OutputCollector
  /** Run inside bubblewrap with this layout; null runs bash directly. */
  sandbox: SandboxLayout | null
  /** Default: commandEnvironment() of the service's environment, nothing passed through. */
  env?: Readonly<Record<string, string>>
  /** Without a sandbox, what holds the command's processes (default `process-group`). */
  containment?: Containment
  /** Sandboxed: the session whose warm sandboxes the command may take (docs/adr/0390-warm-sandboxes.md). */
  warm?: WarmOwner
}

export type ShellRunResult = {
  exitCode: number
  timedOut: boolean
  aborted: boolean
  /** The output could not be stored (blob directory full or read-only): the command was stopped. */
  storageError?: Error
}

// The outer shell (sh: docs/adr/0290-wrapper-shells-are-sh.md) execs bash with stderr on stdout:
// one pipe, so the two streams interleave exactly as written, and error messages read as
// `bash: line 1: …` as usual.
// First it says on fd 3 that the command's containment is set up (bubblewrap's sandbox, the PID
// namespace), and closes fd 3 for the command: starts are paced by the time they really take
// (docs/adr/0301-process-starts-are-paced.md).
export const MERGE_STDERR = 'printf . >&3; exec bash -c "$1" 2>&1 3>&-'

/**
 * Bubblewrap waits, after its mounts and before it starts the command, to read a byte from fd 3,
 * then closes it (its monitor closed its own copy already): the spawner writes the byte and the
 * end of fd 3 is the start, the command never sees fd 3 (docs/adr/0541-bubblewrap-announces-its-own-start.md).
 */
export const BLOCK_ON_FD_3 = ['--block-fd', '3'] as const

// What programs expect to find (docs/adr/0101-bash-environment.md); with a default where a
// missing value would break common commands.
const MINIMAL_ENVIRONMENT: Readonly<Record<string, string | undefined>> = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: undefined,
  LANG: 'C.UTF-8',
  LC_ALL: undefined,
  LC_CTYPE: undefined,
  TZ: undefined,
  TERM: 'dumb',
}

/**
 * The command without the wrapper shell, for a spawner that merges stderr itself: `bash`
 * directly, with `bash` as its `$0` as before (docs/adr/0540-the-spawner-merges-stderr.md); in
 * bubblewrap with the start byte on fd 3 (docs/adr/0541). A PID namespace keeps its init shell
 * (containment.ts): undefined. `sandbox` is bubblewrap's argv up to the command.
 */
export function directShell(
  sandbox: readonly string[] | undefined,
  containment: Containment,
  command: string,
): LaunchOptions['direct'] {
  if (sandbox)
    return { argv: [BWRAP_COMMAND, ...BLOCK_ON_FD_3, ...sandbox.slice(1), 'bash', '-c', command], unblocksStart: true }
  return containment === 'process-group' ? { argv: ['bash', '-c', command], unblocksStart: false } : undefined
}

/**
 * The environment of a command: the minimal set above (the service's value, else the default)
 * plus the names the operator passes through (TOOLEXEC_BASH_ENV_PASSTHROUGH). Nothing else of the
 * service's environment (credentials given to the service) reaches a tenant's command.
 */
export function commandEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  passthrough: readonly string[] = [],
): Record<string, string> {
  const result: Record<string, string> = {}
  for (const [name, fallback] of Object.entries(MINIMAL_ENVIRONMENT)) {
    const value = env[name] ?? fallback
    if (value !== undefined) result[name] = value
  }
  for (const name of passthrough) {
    const value = env[name]
    if (value !== undefined && !name.startsWith('TOOLEXEC_')) result[name] = value
  }
  return result
}

function signalExitCode(signal: NodeJS.Signals | null): number {
  const numbers: Record<string, number> = {
    SIGHUP: 1,
    SIGINT: 2,
    SIGQUIT: 3,
    SIGKILL: 9,
    SIGSEGV: 11,
    SIGPIPE: 13,
    SIGTERM: 15,
  }
  return 128 + (signal ? (numbers[signal] ?? 0) : 0)
}

/**
 * Runs `bash -c COMMAND`, optionally inside bubblewrap: in a PID namespace (bubblewrap's, or
 * `unshare`'s with the sandbox off) that ends with the process started, else as the leader of
 * its own process group. On timeout or abort the group gets SIGTERM then SIGKILL (`bwrap` the
 * same, `unshare` SIGKILL at once); when the shell exits, any background process it left behind
 * is killed the same way. Resolves only once the output is fully written and the group is gone.
 */
export async function runShellCommand(options: ShellRunOptions): Promise<ShellRunResult> {
  const { output, signal } = options
  const shell = [WRAPPER_SHELL, '-c', MERGE_STDERR, 'sh', options.command]
  const sandbox = options.sandbox ? [BWRAP_COMMAND, ...bubblewrapArguments(options.sandbox)] : undefined
  const containment = sandbox ? 'bwrap' : (options.containment ?? 'process-group')
  const argv = sandbox ? [...sandbox, ...shell] : containedShellArgv(containment, MERGE_STDERR, options.command)
  const env = options.env ?? commandEnvironment()
  const direct = directShell(sandbox, containment, options.command)
  let child: LaunchedCommand
  let ownGroup = true
  // Settled when this call is over: the session's warm pool refills then (docs/adr/0470).
  const finished = deferred<void>()
  let warm: LaunchedCommand | undefined
  try {
    // A sandbox already set up for this session's layout, else a cold start
    // (docs/adr/0390-warm-sandboxes.md); an aborted call never takes one.
    warm =
      sandbox && options.warm && !signal.aborted
        ? warmSandboxes.take(options.warm, sandbox, {
            cwd: options.cwd,
            env,
            command: options.command,
            binds: [...(options.sandbox?.writableDirectories ?? []), ...(options.sandbox?.readOnlyDirectories ?? [])],
            after: finished.promise,
          })
        : undefined
    // Forked by the spawner process, off this event loop (docs/adr/0160-a-spawner-process-forks-bash.md).
    // Paced: an abort while the start waits its turn takes it out of the queue, unstarted
    // (docs/adr/0301-process-starts-are-paced.md).
    // A signal to a process group crosses a PID namespace, so every command gets a group of its
    // own, its `kill 0` reaching only its own call: `unshare`'s (docs/adr/0476-a-pid-namespace-command-gets-its-own-session-again.md)
    // and bubblewrap's, which no longer makes a session inside
    // (docs/adr/0577-bubblewrap-runs-without-a-session-of-its-own.md). Both are still ended by
    // their handle: what holds their processes dies with the process started.
    ownGroup = warm !== undefined || (!sandbox && containment === 'process-group')
    child =
      warm ??
      (await commandLauncher.launch(argv, {
        cwd: options.cwd,
        env,
        signal,
        announcesStart: true,
        direct,
        // The same containment without setpriv, unshare and the init shell, where the spawner can
        // be the namespace's init itself (docs/adr/0555-the-native-spawner-is-the-pid-namespace-init.md).
        ...(containment === 'pid-namespace' ? { namespacedArgv: ['bash', '-c', options.command] } : {}),
      }))
  } catch (error) {
    finished.resolve()
    output.destroy()
    throw error
  }
  let timedOut = false
  let aborted = false
  let killing: Promise<void> | undefined
  const kill = () => {
    // `unshare` ignores SIGTERM: SIGKILL to it ends the namespace at once, as the TERM its first
    // process forwarded did (docs/adr/0461-the-pid-namespace-ends-with-unshare.md).
    killing ??= ownGroup
      ? killProcessGroup(child.pid)
      : killCommand(child, containment === 'pid-namespace' ? 0 : undefined)
  }
  const timer = setTimeout(() => {
    timedOut = true
    kill()
  }, options.timeoutMs)
  const onAbort = () => {
    aborted = true
    kill()
  }
  signal.addEventListener('abort', onAbort, { once: true })
  if (signal.aborted) onAbort()
  // Output that cannot be stored stops the command at once, rather than leaving it blocked on a
  // full pipe until its timeout (docs/adr/0122-unstorable-output-fails-the-call.md).
  let storageError: Error | undefined
  output.once('error', (error) => {
    storageError = error
    kill()
  })

  try {
    child.stdout.pipe(output, { end: false })
    child.stderr.pipe(output, { end: false })
    const [code, exitSignal] = await child.exited.catch(async (error: unknown) => {
      // The spawner stopped under the command: its group goes before the call fails.
      kill()
      await killing
      throw error
    })
    // Background jobs would hold the pipe open (and outlive the call): they go with the shell.
    // A warm sandbox's end is bubblewrap's own (its PID namespace dies with it): its pipes close
    // by themselves, and its group, only bwrap, is left to the spawner's reaping (docs/adr/0473).
    // So is a command without a group of its own (bubblewrap's or `unshare`'s PID namespace):
    // what held its processes died with it, and a signal after the exit is never sent
    // (docs/adr/0504-no-kill-after-a-namespace-exit.md).
    if (!warm && ownGroup) kill()
    await Promise.all([child.closed, killing])
    const exitCode = code ?? signalExitCode(exitSignal)
    if (storageError) return { exitCode, timedOut, aborted, storageError }
    output.end()
    await output.result().catch((error: Error) => {
      storageError = error
    })
    return { exitCode, timedOut, aborted, ...(storageError ? { storageError } : {}) }
  } finally {
    finished.resolve()
    clearTimeout(timer)
    signal.removeEventListener('abort', onAbort)
    if (!output.writableEnded) output.destroy()
  }
}
