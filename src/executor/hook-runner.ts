import type { AnyTool, ToolUseContext } from '../tool/tool.js'

/** What the PreToolUse hooks of one call decided, already combined (deny > ask > allow). */
export type PreToolUseOutcome = {
  permissionDecision?: 'allow' | 'deny' | 'ask'
  permissionDecisionReason?: string
  /** Replaces the input `call` receives (re-validated by the pipeline). */
  updatedInput?: { [key: string]: unknown }
  /** Extra text appended to the result the model sees. */
  additionalContext?: string[]
  /** `continue: false` or an exit-2 block: the call does not run; this is the reason. */
  blockingReason?: string
}

export type PostToolUseOutcome = { additionalContext?: string[]; blockingReason?: string }

/** The engine's view of hooks; the hooks module implements it from the settings file. */
export interface HookRunner {
  preToolUse(tool: AnyTool, input: { [key: string]: unknown }, context: ToolUseContext): Promise<PreToolUseOutcome>
  postToolUse(
    tool: AnyTool,
    input: { [key: string]: unknown },
    response: unknown,
    context: ToolUseContext,
  ): Promise<PostToolUseOutcome>
  postToolUseFailure(
    tool: AnyTool,
    input: { [key: string]: unknown },
    error: string,
    context: ToolUseContext,
  ): Promise<PostToolUseOutcome>
}

export const NO_HOOKS: HookRunner = {
  preToolUse: async () => ({}),
  postToolUse: async () => ({}),
  postToolUseFailure: async () => ({}),
}
