import type { BlobInfo } from '../results/blob-store.js'
import type { AbortReason } from './abort-reason.js'
import type { RunOutcome } from './run-executor-types.js'
import type { CompletionEvent } from './run-sink.js'
import type { SessionContext } from './session-context.js'
import type { TrackedCall } from './tracked-call.js'

/** What a run ends with once every block has its result: one result per block, in block order. */
export function runOutcome(
  cancelled: boolean,
  stopReason: AbortReason | undefined,
  calls: readonly TrackedCall[],
  blobs: BlobInfo[],
  context: SessionContext,
): RunOutcome {
  const status = cancelled ? 'cancelled' : 'completed'
  const shutdown = stopReason?.kind === 'shutdown'
  return {
    status,
    ...(shutdown ? { cancelReason: 'shutdown' as const } : {}),
    results: calls.map((call) => call.result!),
    blobs,
    context,
  }
}

/** The run.completed event of `outcome`: a shutdown says so (docs/design.md §10). */
export function completionEvent(outcome: RunOutcome): CompletionEvent {
  const { status, cancelReason } = outcome
  return { type: 'run.completed', status, ...(cancelReason ? { cancel_reason: cancelReason } : {}) }
}
