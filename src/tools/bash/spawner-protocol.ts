/**
 * The messages between the service and its spawner process (native/spawner.c where built, else
 * src/tools/bash/spawner-main.ts: docs/adr/0160-a-spawner-process-forks-bash.md,
 * docs/adr/0499-the-native-spawner.md; a change here is a change to both). JSON over the IPC channel; `spawned` carries
 * the command's stdout pipe as its handle, so the service reads the output without a relay.
 */
export type SpawnRequest = {
  type: 'spawn'
  id: number
  file: string
  args: string[]
  cwd: string
  env: Record<string, string>
  /**
   * The command writes a byte to its fd 3 once its sandbox is set up (the wrapper shell does,
   * run-shell-command.ts): `started` is sent then, so that starts are paced by the time they
   * really take (docs/adr/0301-process-starts-are-paced.md). Without it, `started` is implied by `spawned`.
   */
  announcesStart?: boolean
  /**
   * Its stdin is a pipe the service writes once (`input`) and closes: a warm sandbox reads its
   * command there (warm-sandboxes.ts, docs/adr/0390-warm-sandboxes.md). Otherwise stdin is /dev/null.
   */
  takesInput?: boolean
  /**
   * Started in the spawner's own process group (no `setsid` nor `setpgid`: docs/adr/0460-commands-start-without-a-session-of-their-own.md):
   * a single program that signals nothing (Grep's search), stopped by `signal` messages to its
   * process, never by its group. Otherwise a command leads a group of its own: in the spawner's
   * session where the spawner named `process-groups` (docs/adr/0576), else in a session of its own.
   */
  sameSession?: boolean
  /**
   * With `announcesStart`: fd 4 is a pipe for bubblewrap's `--json-status-fd 4`, passed to the
   * service as the handle of a `status` message, and stderr's pipe as the handle of `stderr-pipe`
   * (no `stderr`/`stderr-end` relay): the service sees the end without this process
   * (docs/adr/0473-a-warm-sandbox-reports-its-own-end.md).
   */
  reportsStatus?: boolean
  /**
   * Stdout's pipe is its stderr too: the two interleave as written with no wrapper shell to say
   * `2>&1`; no stderr is relayed (docs/adr/0540-the-spawner-merges-stderr.md). Only where the
   * spawner's `ready` named `merge-stderr`; never with `reportsStatus`.
   */
  mergesStderr?: boolean
  /**
   * With `announcesStart`: fd 3 holds one byte for bubblewrap's `--block-fd 3`, which reads it once
   * the sandbox is set up and closes fd 3; that end is the start
   * (docs/adr/0541-bubblewrap-announces-its-own-start.md). Only where `ready` named `block-fd`.
   */
  unblocksStart?: boolean
  /**
   * Only to a spawner whose `ready` named `pid-namespace`: `file` is started in a new PID
   * namespace whose first process is the spawner's own init (no `setpriv`, `unshare` or init
   * shell), stdout and stderr on one pipe, the namespace ending with the command
   * (docs/adr/0555-the-native-spawner-is-the-pid-namespace-init.md).
   */
  pidNamespace?: boolean
}

/**
 * A signal to the command's own process, sent by the spawner through its `ChildProcess`, which
 * knows whether the process was reaped: a pid signalled after its reaping could be another's.
 */
export type SignalRequest = { type: 'signal'; id: number; signal: NodeJS.Signals }

/**
 * The one write to the stdin of a command started with `takesInput`, then the pipe's end: when
 * its `stdin` handle did not reach the service.
 */
export type InputRequest = { type: 'input'; id: number; data: string }

/** What Node's spawn error carried, so the service rethrows the same text (`spawn bwrap ENOENT`). */
export type SpawnFailure = { message: string; code?: string; errno?: number; syscall?: string; path?: string }

export type SpawnerMessage =
  /** `features`: what this spawner can do beyond the base protocol (absent: nothing), e.g. `pid-namespace`. */
  | { type: 'ready'; features?: string[] }
  | { type: 'spawned'; id: number; pid: number }
  /**
   * The stdin pipe of a command started with `takesInput`, as the message's handle: the service
   * writes the command there itself, with no hop through this process (docs/adr/0471-the-service-writes-a-warm-command-itself.md).
   */
  | { type: 'stdin'; id: number }
  /** The handles of a `reportsStatus` command: bubblewrap's status pipe, and its stderr pipe. */
  | { type: 'status'; id: number }
  | { type: 'stderr-pipe'; id: number }
  | { type: 'spawn-error'; id: number; error: SpawnFailure }
  /** The command announced its start on fd 3, or closed fd 3 without a word. */
  | { type: 'started'; id: number }
  /** Bytes the wrapper (bwrap, setpriv, unshare) wrote to stderr, base64: rare and small. */
  | { type: 'stderr'; id: number; data: string }
  | { type: 'stderr-end'; id: number }
  /**
   * Sent once the command exited and its stderr closed (docs/adr/0498): `stderrEnded` says the
   * exit carries stderr's end, and no `stderr-end` comes. A warm sandbox's stderr is a handle.
   */
  | { type: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null; stderrEnded?: boolean }
