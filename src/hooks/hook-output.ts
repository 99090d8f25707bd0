import { z } from 'zod'

const DecisionSchema = z.enum(['allow', 'deny', 'ask'])
const InputSchema = z.record(z.string(), z.unknown())

// Loose objects: hooks written for Claude Code may send fields this service does not use.
const HookSpecificOutputSchema = z.looseObject({
  hookEventName: z.string().optional(),
  permissionDecision: DecisionSchema.optional(),
  permissionDecisionReason: z.string().optional(),
  updatedInput: InputSchema.optional(),
  additionalContext: z.string().optional(),
})

/** The JSON a hook may print on stdout (or answer over HTTP). Every field is optional. */
export const HookOutputSchema = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  /** Legacy form: `approve` is an allow, `block` a deny (PreToolUse) or a block (PostToolUse). */
  decision: z.enum(['approve', 'block']).optional(),
  reason: z.string().optional(),
  // Also accepted at the top level, for hooks that do not nest them.
  permissionDecision: DecisionSchema.optional(),
  permissionDecisionReason: z.string().optional(),
  updatedInput: InputSchema.optional(),
  additionalContext: z.string().optional(),
  hookSpecificOutput: HookSpecificOutputSchema.optional(),
})
export type HookOutput = z.infer<typeof HookOutputSchema>

/** One hook's answer, normalised: what combineHookVerdicts works with. */
export type HookVerdict = {
  permissionDecision?: 'allow' | 'deny' | 'ask'
  reason?: string
  updatedInput?: { [key: string]: unknown }
  additionalContext?: string
  /** `continue: false`, exit code 2, or (PostToolUse) `decision: "block"`. */
  blockingReason?: string
}

/** Reads a hook's printed answer. Empty or non-JSON text is "no opinion"; bad JSON throws. */
export function parseHookOutput(text: string): HookOutput | undefined {
  const trimmed = text.trim()
  if (!trimmed.startsWith('{')) return undefined
  let json: unknown
  try {
    json = JSON.parse(trimmed)
  } catch (error) {
    throw new Error(`printed invalid JSON: ${(error as Error).message}`)
  }
  const parsed = HookOutputSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(`printed JSON with a bad field \`${issue?.path.join('.')}\`: ${issue?.message}`)
  }
  return parsed.data
}

/** Maps the JSON fields onto a verdict; `event` decides what a legacy `block` means. */
export function verdictFromOutput(output: HookOutput, event: string): HookVerdict {
  const specific = output.hookSpecificOutput ?? {}
  const legacy = output.decision === 'approve' ? 'allow' : output.decision === 'block' ? 'deny' : undefined
  const verdict: HookVerdict = {}
  const decision = specific.permissionDecision ?? output.permissionDecision ?? legacy
  const reason = specific.permissionDecisionReason ?? output.permissionDecisionReason ?? output.reason
  if (event === 'PreToolUse') {
    if (decision) verdict.permissionDecision = decision
    const updatedInput = specific.updatedInput ?? output.updatedInput
    if (updatedInput) verdict.updatedInput = updatedInput
  } else if (output.decision === 'block') {
    verdict.blockingReason = output.reason ?? `A ${event} hook blocked the result.`
  }
  if (reason !== undefined) verdict.reason = reason
  const additionalContext = specific.additionalContext ?? output.additionalContext
  if (additionalContext) verdict.additionalContext = additionalContext
  if (output.continue === false) verdict.blockingReason = output.stopReason ?? `A ${event} hook stopped the call.`
  return verdict
}
