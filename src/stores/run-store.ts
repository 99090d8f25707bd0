import type { RunStatus } from '../events/run-event.js'
import type { AssistantMessage, ToolResultBlock, ToolUseBlock } from '../messages/content-blocks.js'
import type { BlobInfo } from '../results/blob-store.js'

/** How the run was created: it decides how long a permission ask may wait (docs/design.md §7). */
export type RunMode = 'wait' | 'async' | 'stream'

/** An ask still open, as the run record lists it (GET /v1/runs). */
export type OpenAsk = { request_id: string; tool_use_id: string; tool: string; opened_at: string; expires_at: string }

/**
 * What another instance needs to take the run over when its own instance is lost while calls
 * wait (docs/adr/0243-taking-over-a-waiting-run.md). Kept only where instances share a store.
 */
export type ResumeSpec = {
  blocks: ToolUseBlock[]
  refusals: Array<[string, string]>
  parentMessage: AssistantMessage
  runOptions: { [key: string]: unknown }
  permissionTimeoutMs?: number
  ephemeralSession: boolean
}

export type RunRecord = {
  readonly runId: string
  readonly tenant: string
  readonly sessionId: string
  readonly mode: RunMode
  readonly createdAt: string
  readonly idempotencyKey?: string
  status: RunStatus
  /** Known so far, in block order (a streamed run learns them as they arrive). */
  toolUseIds: string[]
  /** Results yielded so far, in block order. */
  results: ToolResultBlock[]
  blobs: BlobInfo[]
  finishedAt?: string
  /** A cancelled run's cause when it was not a client's cancel (docs/adr/0288). */
  cancelReason?: 'shutdown'
  /** Set when the run finishes; the sweeper removes the run (and its events) after it. */
  expiresAt?: number
  /** The distinct tool names of its blocks so far. */
  tools?: string[]
  /** Asks waiting for an answer now. */
  openAsks?: OpenAsk[]
  /**
   * Since when the Managed Agents session this run serves has waited on calls of ours with none
   * running (docs/managed-agents.md#liveness); absent while it makes progress.
   */
  stalledSince?: string
  resume?: ResumeSpec
}

/** GET /v1/runs: the tenant's runs, newest first. `cursor` is opaque to callers. */
export type RunListQuery = {
  tenant: string
  status?: RunStatus
  sessionId?: string
  hasOpenAsks?: boolean
  stalled?: boolean
  createdAfter?: number
  createdBefore?: number
  cursor?: RunCursor
  limit: number
}
/** Where a page ended: the last run's creation time and id (ties are ordered by id). */
export type RunCursor = { createdAt: number; runId: string }
export type RunListPage = { records: RunRecord[]; next?: RunCursor }

type RunCompletion = {
  status: Exclude<RunStatus, 'running'>
  results: ToolResultBlock[]
  blobs: BlobInfo[]
  finishedAt: string
  expiresAt: number
  cancelReason?: 'shutdown'
}

/**
 * Runs and their results. Reads are tenant-scoped: another tenant's run is simply absent.
 * Writes are narrow operations (not read-modify-write) so a shared store can apply them atomically.
 */
export interface RunStore {
  create(record: RunRecord): Promise<void>
  get(tenant: string, runId: string): Promise<RunRecord | undefined>
  appendToolUseId(runId: string, toolUseId: string, tool: string): Promise<void>
  /** The asks open now (replaces the previous list). */
  setOpenAsks(runId: string, asks: readonly OpenAsk[]): Promise<void>
  /** Marks the run's Managed Agents session stalled since `since`, or clears the mark (undefined). */
  setStalled(runId: string, since: string | undefined): Promise<void>
  /**
   * An answer given while no instance held the run (its instance lost, no survivor yet): the
   * instance that takes the run over applies it (docs/adr/0243-taking-over-a-waiting-run.md).
   */
  storeAnswer(runId: string, requestId: string, answer: unknown): Promise<void>
  storedAnswers(runId: string): Promise<Map<string, unknown>>
  /** The tenant's runs, newest first; records may leave out results and blobs. */
  list(query: RunListQuery): Promise<RunListPage>
  /** Results yielded since the last append, in block order (blobs come with the completion). */
  appendResults(runId: string, results: readonly ToolResultBlock[]): Promise<void>
  /**
   * A call's result, finished but held behind an earlier block still running: kept until the run
   * completes, so a survivor closing the run after its instance died gives it this result, not
   * the lost-call text (docs/adr/0238-finished-results-survive-a-lost-instance.md).
   */
  holdResult(runId: string, result: ToolResultBlock): Promise<void>
  /** The results held for a run, by tool_use id. */
  heldResults(runId: string): Promise<Map<string, ToolResultBlock>>
  complete(runId: string, completion: RunCompletion): Promise<void>
  /** Removes finished runs past their expiry, and the oldest finished ones beyond the bound. */
  sweep(now: number): Promise<RunRecord[]>
}
