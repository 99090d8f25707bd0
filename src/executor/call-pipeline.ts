import type { AssistantMessage, ToolResultContent, ToolUseBlock } from '../messages/content-blocks.js'
import {
  CANCEL_MESSAGE,
  hookBlockedMessage,
  pipelineFaultMessage,
  postHookBlockedMessage,
  wrapToolUseError,
} from '../messages/tool-error-messages.js'
import type { BlobRef } from '../results/blob-store.js'
import { observableCopy, parseToolInput, stripInternalKeys } from '../tool/parse-tool-input.js'
import type { PermissionDecision } from '../tool/permission-result.js'
import type {
  AnyTool,
  CanUseToolFn,
  ContextModifier,
  ToolCallError,
  ToolProgressData,
  ToolUseContext,
} from '../tool/tool.js'
import { formatThrownError } from './format-thrown-error.js'
import { type HookRunner, NO_HOOKS, type PostToolUseOutcome, type PreToolUseOutcome } from './hook-runner.js'
import type { PermissionGate } from './permission-gate.js'

export type CallOutcome = {
  content: ToolResultContent
  isError: boolean
  /** Set when the tool stored its full output itself (see MappedToolResult.blob). */
  blob?: BlobRef
  contextModifier?: ContextModifier
  /** The call never ran: a permission deny, or a hook that blocked it (the audit trail's `denied`). */
  denied?: true
}

export type CallPipelineInput = {
  tool: AnyTool
  block: ToolUseBlock
  /** Output of step 3, done by the scheduler when the block was queued. */
  parsedInput: { [key: string]: unknown }
  context: ToolUseContext
  parentMessage: AssistantMessage
  permissions: PermissionGate
  hooks: HookRunner
  onProgress: (data: ToolProgressData) => void
  /** Whether the executor aborted this call; cheaper than touching the lazily made signal. */
  isAborted: () => boolean
  /** What the tool may ask the gate about nested calls: made once per run, not per call. */
  canUseTool: CanUseToolFn
}

type Input = { [key: string]: unknown }
type StageResult<T> = { ok: true; value: T } | { ok: false; outcome: CallOutcome }

const fail = (content: string): CallOutcome => ({ content, isError: true })

/** With no hooks configured the hook stages are skipped outright: no await, no allocation. */
const NO_HOOK_OUTCOME: PreToolUseOutcome & PostToolUseOutcome = Object.freeze({})

/** Step 4 (and again for inputs rewritten by hooks or an approver): the tool's semantic checks. */
async function validateInput(tool: AnyTool, input: Input, context: ToolUseContext): Promise<StageResult<Input>> {
  if (!tool.validateInput) return { ok: true, value: input }
  const result = await tool.validateInput(input, context)
  return result.result ? { ok: true, value: input } : { ok: false, outcome: fail(wrapToolUseError(result.message)) }
}

/** Input replaced by a hook or an approver is parsed and validated like the original. */
async function revalidate(tool: AnyTool, input: unknown, context: ToolUseContext): Promise<StageResult<Input>> {
  const parsed = parseToolInput(tool, input)
  if (!parsed.ok) return { ok: false, outcome: fail(parsed.message) }
  return validateInput(tool, stripInternalKeys(tool, parsed.data), context)
}

/** A tool that stored its output before failing says so on the error (see ToolCallError). */
function blobOf(error: unknown): BlobRef | undefined {
  return error instanceof Error ? (error as ToolCallError).blob : undefined
}

/** What post hooks tell the model: their context, and the reason when one blocked (exit 2). */
function postHookFeedback(post: PostToolUseOutcome): string[] {
  const feedback = [...(post.additionalContext ?? [])]
  if (post.blockingReason !== undefined) feedback.push(postHookBlockedMessage(post.blockingReason))
  return feedback
}

function appendContext(content: ToolResultContent, extra: readonly string[] | undefined): ToolResultContent {
  if (!extra || extra.length === 0) return content
  const text = extra.join('\n')
  return typeof content === 'string' ? `${content}\n\n${text}` : [...content, { type: 'text', text }]
}

/**
 * One call, from admission to content (docs/design.md §4). The steps, numbered as everywhere in src/:
 *
 *   1. Lookup: the tool by name or alias (`admitCall` → registry/find-tool.ts, at queue time).
 *   2. A run aborted before the call starts gets the cancel text instead.
 *   3. Schema parse (`admitCall` → tool/parse-tool-input.ts, at queue time); it also decides
 *      whether the call may run beside others (scheduling-rule.ts).
 *   4. `validateInput`: the tool's own semantic checks.
 *   5. The input copies: internal-only keys stripped, hooks and permissions see an observable copy.
 *   6. `runPreHooks`, then `checkPermission`. A rewritten input goes through 3 and 4 again.
 *   7. `callTool`: `call()` with progress and the call's AbortSignal; a throw becomes its text.
 *      `runPostHooks` then adds the hooks' context (or their block message).
 *   8. `mapToolResult` turns the data into content; size-results.ts then applies the per-tool
 *      threshold and the per-run budget, and result-yielder.ts yields in block order.
 *
 * Failures come back as outcomes, never as throws: one call never fails a run.
 */
export async function runCallPipeline(input: CallPipelineInput): Promise<CallOutcome> {
  const { tool, context } = input
  try {
    if (input.isAborted()) return fail(CANCEL_MESSAGE)
    let callInput = stripInternalKeys(tool, input.parsedInput)
    if (tool.validateInput) {
      const validated = await validateInput(tool, callInput, context)
      if (!validated.ok) return validated.outcome
      callInput = validated.value
    }
    let hookOutcome: PreToolUseOutcome = NO_HOOK_OUTCOME
    if (input.hooks !== NO_HOOKS) {
      const hooked = await runPreHooks(input, callInput)
      if (!hooked.ok) return hooked.outcome
      ;({ input: callInput, hookOutcome } = hooked.value)
    }
    const decision = await checkPermission(input, callInput, hookOutcome)
    if (decision.behavior === 'deny') return { ...fail(decision.message), denied: true }
    if (decision.updatedInput) {
      const rewritten = await revalidate(tool, decision.updatedInput, context)
      if (!rewritten.ok) return rewritten.outcome
      callInput = rewritten.value
    }
    if (input.isAborted()) return fail(CANCEL_MESSAGE)
    return await callTool(input, callInput, hookOutcome.additionalContext)
  } catch (fault) {
    return fail(pipelineFaultMessage(tool.name, fault instanceof Error ? fault.message : String(fault)))
  }
}

/** Step 6, first half: PreToolUse hooks may block the call or rewrite its input (skipped with none set). */
async function runPreHooks(
  input: CallPipelineInput,
  callInput: Input,
): Promise<StageResult<{ input: Input; hookOutcome: PreToolUseOutcome }>> {
  const { tool, context } = input
  const hookOutcome = await input.hooks.preToolUse(tool, observableCopy(tool, callInput), context)
  if (hookOutcome.blockingReason !== undefined)
    return { ok: false, outcome: { ...fail(hookBlockedMessage(hookOutcome.blockingReason)), denied: true } }
  if (!hookOutcome.updatedInput) return { ok: true, value: { input: callInput, hookOutcome } }
  const rewritten = await revalidate(tool, hookOutcome.updatedInput, context)
  return rewritten.ok ? { ok: true, value: { input: rewritten.value, hookOutcome } } : rewritten
}

/**
 * Step 6, second half: the permission gate allows (maybe with a new input, which the caller
 * revalidates) or denies. A plain function, not an async one: the common allow costs no extra
 * frame or result wrapper (docs/adr/0310-the-engines-common-path-awaits-nothing.md).
 */
function checkPermission(
  input: CallPipelineInput,
  callInput: Input,
  hookOutcome: PreToolUseOutcome,
): Promise<PermissionDecision> {
  return input.permissions.decide({
    tool: input.tool,
    input: observableCopy(input.tool, callInput),
    context: input.context,
    hookOutcome,
  })
}

/** Steps 7–8: the call itself, its post hooks, and the mapping of its data to content. */
async function callTool(input: CallPipelineInput, callInput: Input, preContext?: string[]): Promise<CallOutcome> {
  const { tool, context } = input
  let result: Awaited<ReturnType<AnyTool['call']>>
  try {
    result = await tool.call(callInput, context, input.canUseTool, input.parentMessage, input.onProgress)
  } catch (error) {
    const text = formatThrownError(error)
    const post = await input.hooks.postToolUseFailure(tool, callInput, text, context)
    const outcome = fail(appendContext(text, [...(preContext ?? []), ...postHookFeedback(post)]) as string)
    const blob = blobOf(error)
    return blob ? { ...outcome, blob } : outcome
  }
  const mapped = tool.mapToolResult(result.data, input.block.id)
  const isError = mapped.isError === true
  let content = mapped.content
  if (input.hooks !== NO_HOOKS || preContext !== undefined) {
    const post = input.hooks === NO_HOOKS ? NO_HOOK_OUTCOME : await runPostHooks(input, callInput, result.data)
    content = appendContext(content, [...(preContext ?? []), ...postHookFeedback(post)])
  }
  const outcome: CallOutcome = { content, isError }
  if (mapped.blob) outcome.blob = mapped.blob
  if (!isError && result.contextModifier) outcome.contextModifier = result.contextModifier
  return outcome
}

/** Step 7, after a call that returned: PostToolUse hooks add context or a block message. */
function runPostHooks(input: CallPipelineInput, callInput: Input, data: unknown): Promise<PostToolUseOutcome> {
  return input.hooks.postToolUse(input.tool, callInput, data, input.context)
}
