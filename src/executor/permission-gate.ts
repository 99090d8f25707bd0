import type { PermissionDecision } from '../tool/permission-result.js'
import type { AnyTool, ToolUseContext } from '../tool/tool.js'
import type { PreToolUseOutcome } from './hook-runner.js'

export type PermissionRequest = {
  tool: AnyTool
  /** The observable (backfilled) input, after hooks. */
  input: { [key: string]: unknown }
  context: ToolUseContext
  hookOutcome: PreToolUseOutcome
}

/**
 * Step 6 of the pipeline: rules, mode, hooks' opinion and — for an ask — an approver over the
 * wire. Returns allow (maybe with updated input) or deny with the text the model gets.
 */
export interface PermissionGate {
  decide(request: PermissionRequest): Promise<PermissionDecision>
}

/** Stand-in until the rules engine is configured: every call is allowed. */
export const ALLOW_ALL: PermissionGate = {
  decide: async () => ({ behavior: 'allow' }),
}
