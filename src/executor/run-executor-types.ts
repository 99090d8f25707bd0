import type { AssistantMessage, ToolResultBlock, ToolResultContent, ToolUseBlock } from '../messages/content-blocks.js'
import type { BlobInfo } from '../results/blob-store.js'
import type { Tools } from '../tool/tool.js'
import type { HookRunner } from './hook-runner.js'
import type { PermissionGate } from './permission-gate.js'
import type { CancelMode, RunOptions } from './run-options.js'
import type { RunSink } from './run-sink.js'
import type { SessionContext } from './session-context.js'

export type RunOutcome = {
  status: 'completed' | 'cancelled'
  /** Set when the run was cancelled because the service shut down, not by a client. */
  cancelReason?: 'shutdown'
  /** One per tool_use block, in block order. */
  results: ToolResultBlock[]
  blobs: BlobInfo[]
  /** The session state after every successful call's context modifier, in block order. */
  context: SessionContext
}

export type RunExecutorOptions = {
  runId: string
  /** The pool calls are looked up in (name or alias). */
  tools: Tools
  context: SessionContext
  /** The assistant message the blocks came from; synthesised for bare `tool_uses` batches. */
  parentMessage: AssistantMessage
  options: RunOptions
  /** The one way out: events, results in block order, the run's end (`sinkOf(emit)` for one listener). */
  sink: RunSink
  permissions?: PermissionGate
  hooks?: HookRunner
  /** The run was taken over from a lost instance: `run.started` was emitted there. */
  resumed?: boolean
  /** Each call once it has its outcome (the audit trail, docs/audit.md). */
  onCallFinished?: (call: FinishedCall) => void
}

/** A call's end as the audit trail records it. */
export type FinishedCall = {
  toolUseId: string
  tool: string
  input: unknown
  outcome: 'ok' | 'error' | 'denied' | 'cancelled' | 'lost'
  durationMs: number
}

export type AddToolUseOptions = {
  refuseWith?: string
  /** `lost`: the call was executing on the lost instance; otherwise it finished there (and was recorded there). */
  settled?: { content: ToolResultContent; isError: boolean; lost?: boolean }
}

/**
 * One executor serves whole batches and blocks that stream in one by one: call `addToolUse`
 * per block (it starts as soon as the scheduling rules allow), then `endInput()`. `finished`
 * resolves once every block has exactly one result and `run.completed` has been emitted.
 */
export interface RunExecutor {
  /**
   * `refuseWith`: the block does not run and gets this error text (e.g. cut off by max_tokens).
   * `settled`: the block does not run and gets this outcome (a run taken over from a lost
   * instance: the result it had, or the lost-call text; docs/adr/0243-taking-over-a-waiting-run.md).
   */
  addToolUse(block: ToolUseBlock, options?: AddToolUseOptions): void
  /** Adds an allow rule of source `session` for the rest of the run and the session after it. */
  addAllowRule(rule: string): void
  /** An ask for this call opened (true) or closed: its deadline pauses while a person decides. */
  awaitingAnswer(toolUseId: string, waiting: boolean): void
  endInput(): void
  cancel(mode?: CancelMode): void
  /** Results yielded so far, in block order. */
  results(): ToolResultBlock[]
  readonly finished: Promise<RunOutcome>
  /** Calls executing now (read-only, as p-limit's `activeCount`). */
  readonly executingCount: number
  /** Calls not started yet. */
  readonly queuedCount: number
}
