import type { RunEventBody } from '../events/run-event.js'
import type { RunOutcome } from './run-executor-types.js'

type ResultEvent = Extract<RunEventBody, { type: 'tool.result' }>
export type CompletionEvent = Extract<RunEventBody, { type: 'run.completed' }>
type ProgressEvent = Exclude<RunEventBody, ResultEvent | CompletionEvent>

/**
 * The executor's one way out, given at construction (docs/adr/0190-run-core-cut-along-its-lifecycle.md):
 * progress as it happens, results in block order, and the end of the run once. The run layer
 * numbers, stores and publishes them; the executor calls nothing else of its parent.
 */
export type RunSink = {
  /** run.started, tool.queued/started/progress/completed, permission events: as they happen. */
  event(body: ProgressEvent): void
  /** One per block, in block order. */
  result(body: ResultEvent): void
  /**
   * A result that is final but waits behind an earlier block still running: told once, before
   * `result` hands it out, so it can be kept against the instance's death (docs/adr/0238).
   */
  held?(body: ResultEvent): void
  /** Every block has its result: the run is over. Called once, before `finished` resolves. */
  finish(outcome: RunOutcome, completion: CompletionEvent): void
}

/** One function for every event, run.completed last (tests and callers that only listen). */
export function sinkOf(emit: (body: RunEventBody) => void): RunSink {
  return { event: emit, result: emit, finish: (_outcome, completion) => emit(completion) }
}
