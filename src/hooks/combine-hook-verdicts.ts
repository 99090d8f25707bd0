import type { PostToolUseOutcome, PreToolUseOutcome } from '../executor/hook-runner.js'
import type { HookVerdict } from './hook-output.js'

const joinReasons = (reasons: string[]) => reasons.filter(Boolean).join('\n')

function shared(verdicts: readonly HookVerdict[]): PostToolUseOutcome {
  const outcome: PostToolUseOutcome = {}
  const additionalContext = verdicts.flatMap((verdict) =>
    verdict.additionalContext ? [verdict.additionalContext] : [],
  )
  if (additionalContext.length > 0) outcome.additionalContext = additionalContext
  const blocking = verdicts.flatMap((verdict) => (verdict.blockingReason !== undefined ? [verdict.blockingReason] : []))
  if (blocking.length > 0) outcome.blockingReason = joinReasons(blocking)
  return outcome
}

/**
 * Combines the verdicts of the PreToolUse hooks of one call, given in config order:
 * deny > ask > allow (the reasons of the winning side are joined); `updatedInput` comes from
 * the last hook in config order that answered allow or ask with one; `additionalContext` is
 * concatenated; any block (`continue: false`, exit 2) blocks the call.
 */
export function combinePreToolUseVerdicts(verdicts: readonly HookVerdict[]): PreToolUseOutcome {
  const outcome: PreToolUseOutcome = shared(verdicts)
  const decision = (['deny', 'ask', 'allow'] as const).find((candidate) =>
    verdicts.some((verdict) => verdict.permissionDecision === candidate),
  )
  if (decision) {
    outcome.permissionDecision = decision
    const reasons = verdicts
      .filter((verdict) => verdict.permissionDecision === decision)
      .map((verdict) => verdict.reason ?? '')
    const reason = joinReasons(reasons)
    if (reason) outcome.permissionDecisionReason = reason
  }
  if (decision !== 'deny') {
    const rewriting = verdicts.filter(
      (verdict) =>
        verdict.updatedInput && (verdict.permissionDecision === 'allow' || verdict.permissionDecision === 'ask'),
    )
    const last = rewriting[rewriting.length - 1]
    if (last?.updatedInput) outcome.updatedInput = last.updatedInput
  }
  return outcome
}

/** PostToolUse and PostToolUseFailure: context is concatenated, any block is reported. */
export function combinePostToolUseVerdicts(verdicts: readonly HookVerdict[]): PostToolUseOutcome {
  return shared(verdicts)
}
