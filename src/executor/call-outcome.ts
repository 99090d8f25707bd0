import type { CallOutcome } from './call-pipeline.js'
import type { FinishedCall } from './run-executor-types.js'
import type { TrackedCall } from './tracked-call.js'

/** How the audit trail names a call's end. */
function callOutcomeOf(call: TrackedCall, outcome: CallOutcome): FinishedCall['outcome'] {
  if (call.settled?.lost) return 'lost'
  if (outcome.denied) return 'denied'
  const kind = call.abortReason?.kind
  if (kind !== undefined && kind !== 'timeout') return 'cancelled'
  return outcome.isError ? 'error' : 'ok'
}

/** Tells the audit trail of a call's end; a call settled on a lost instance was told there, unless lost. */
export function reportFinished(
  report: (call: FinishedCall) => void,
  call: TrackedCall,
  outcome: CallOutcome,
  durationMs: number,
): void {
  if (call.settled && !call.settled.lost) return
  report({
    toolUseId: call.block.id,
    tool: call.tool?.name ?? call.block.name,
    input: call.block.input,
    outcome: callOutcomeOf(call, outcome),
    durationMs,
  })
}
