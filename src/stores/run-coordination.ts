/**
 * What instances sharing one store need from each other (docs/adr/0111-run-leases.md). Messages
 * are plain JSON: the run layer gives them meaning.
 */
export type HeldRun = { runId: string; tenant: string }

export type ControlHandler = (message: unknown) => boolean | Promise<boolean>

export interface RunCoordination {
  /** False while the shared store is unreachable: no new runs start (503). */
  available(): boolean
  /** Why the store is unavailable, for /readyz. */
  unavailableReason(): string | undefined
  /**
   * Marks the run as executing here: a lease kept alive while this process lives, and a control
   * channel on which `handler` gets the messages other instances send. Returns the release.
   */
  hold(run: HeldRun, handler: ControlHandler): Promise<() => Promise<void>>
  /**
   * Delivers a message to the instance executing the run: its handler's answer, or `undefined`
   * when no instance holds the run (it ended, or its instance is gone).
   */
  send(runId: string, message: unknown): Promise<boolean | undefined>
  /** Tells every instance, this one included (a session deleted: its shell, wherever it lives, ends). */
  announce(message: unknown): Promise<void>
  /** Hears every announcement; answers the unsubscribe. */
  onAnnouncement(listener: (message: unknown) => void): () => void
  /** Runs whose lease has expired; each is handed to exactly one caller across instances. */
  claimLostRuns(): Promise<HeldRun[]>
  /** Drops a lost run from the running set once its record is closed. */
  forget(runId: string): Promise<void>
  close(): Promise<void>
}
