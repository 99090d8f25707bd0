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
 * wire. Returns allow (maybe with updated input) or deny with the text the model gets. A gate
 * that knows at once may answer without a promise: the pipeline then calls the tool in the same
 * turn (docs/adr/0441-the-call-pipeline-is-callback-shaped.md).
 */
export interface PermissionGate {
  decide(request: PermissionRequest): PermissionDecision | Promise<PermissionDecision>
}

const ALLOWED: PermissionDecision = Object.freeze({ behavior: 'allow' })

/** Stand-in until the rules engine is configured: every call is allowed, at once. */
export const ALLOW_ALL: PermissionGate = {
  decide: () => ALLOWED,
}
