import type { RunEvent, RunEventBody } from '../events/run-event.js'

export type EventListener = (event: RunEvent) => void

/**
 * The ordered event log of each run. `append` stamps `seq` (1, 2, …), `run_id` and `ts`.
 * `subscribe` delivers every event after `afterSeq` and then each new one, with no gap and no
 * duplicate between the backlog and the live part.
 */
export interface EventStore {
  append(runId: string, body: RunEventBody): Promise<RunEvent>
  /** `append` for several bodies at once, in order: one promise for all (the run's hot path). */
  appendBatch(runId: string, bodies: readonly RunEventBody[]): Promise<RunEvent[]>
  read(runId: string, afterSeq: number): Promise<RunEvent[]>
  subscribe(runId: string, afterSeq: number, listener: EventListener): Promise<() => void>
  delete(runId: string): Promise<void>
}
