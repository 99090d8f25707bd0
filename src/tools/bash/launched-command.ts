import type { Readable } from 'node:stream'

/** A command started, in its own process group unless `sameSession`, wherever it was forked (launch-command.ts). */
export type LaunchedCommand = {
  /**
   * The command's first process, the leader of its process group (in the native spawner's
   * session, else a session of its own: docs/adr/0576): `process.kill(-pid, …)` reaches the whole group.
   */
  readonly pid: number
  /**
   * Signals the command's first process by its handle, not its pid: nothing once it exited
   * (docs/adr/0460-commands-start-without-a-session-of-their-own.md).
   */
  readonly signal: (signal: NodeJS.Signals) => void
  readonly stdout: Readable
  readonly stderr: Readable
  /**
   * The leader's exit code and signal. Rejects when the spawner process stopped while the command
   * ran (SpawnerStoppedError): the command's processes go with it, its exit is not known.
   */
  readonly exited: Promise<[number | null, NodeJS.Signals | null]>
  /** Resolves once the leader exited and both streams closed. */
  readonly closed: Promise<void>
  /**
   * Resolves once the command is under way: its sandbox set up when it announces its start
   * (`announcesStart`), else at once; at the latest when it exits. Paces the next start.
   */
  readonly started: Promise<void>
  /**
   * Started with `takesInput`: writes `data` to the command's stdin and closes it, once
   * (a warm sandbox's command, docs/adr/0390-warm-sandboxes.md).
   */
  readonly input?: (data: string) => void
}

/**
 * The text of a call whose spawner process stopped under it (docs/adr/0160-a-spawner-process-forks-bash.md):
 * a result, never a hang.
 */
export class SpawnerStoppedError extends Error {
  constructor(reason: string) {
    super(
      `The process that starts commands stopped (${reason}) while this command ran: the command was killed and may have had partial effects. A retry starts it afresh.`,
    )
    this.name = 'SpawnerStoppedError'
  }
}
