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
import type { AnyTool, CanUseToolFn, ContextModifier, ToolProgressData, ToolUseContext } from '../tool/tool.js'
import { formatThrownError } from './format-thrown-error.js'
import { type HookRunner, NO_HOOKS, type PostToolUseOutcome, type PreToolUseOutcome } from './hook-runner.js'
import type { PermissionGate } from './permission-gate.js'

export type CallOutcome = {
  content: ToolResultContent
  isError: boolean
  /** Set when the tool stored its full output itself (see MappedToolResult.blob). */
  blob?: BlobRef
  contextModifier?: ContextModifier
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
}

type Input = { [key: string]: unknown }
type StageResult<T> = { ok: true; value: T } | { ok: false; outcome: CallOutcome }

const fail = (content: string): CallOutcome => ({ content, isError: true })

/** With no hooks configured the hook stages are skipped outright: no await, no allocation. */
const NO_HOOK_OUTCOME: PreToolUseOutcome & PostToolUseOutcome = Object.freeze({})

/** Step 4 (and again for inputs rewritten by hooks or an approver): the tool's semantic checks. */
async function validate(tool: AnyTool, input: Input, context: ToolUseContext): Promise<StageResult<Input>> {
  if (!tool.validateInput) return { ok: true, value: input }
  const result = await tool.validateInput(input, context)
  return result.result ? { ok: true, value: input } : { ok: false, outcome: fail(wrapToolUseError(result.message)) }
}

/** Input replaced by a hook or an approver is parsed and validated like the original. */
async function revalidate(tool: AnyTool, input: unknown, context: ToolUseContext): Promise<StageResult<Input>> {
  const parsed = parseToolInput(tool, input)
  if (!parsed.ok) return { ok: false, outcome: fail(parsed.message) }
  return validate(tool, stripInternalKeys(tool, parsed.data), context)
}

/** A tool that stored its output before failing (Bash spills) says so on the error it throws. */
function blobOf(error: unknown): BlobRef | undefined {
  const blob = (error as { blob?: Partial<BlobRef> } | null)?.blob
  return typeof blob?.blobId === 'string' && typeof blob.path === 'string' && typeof blob.size === 'number'
    ? (blob as BlobRef)
    : undefined
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
 * Steps 4–8 of one call (SPEC §4): semantic validation, the three input copies, PreToolUse
 * hooks, the permission decision, `call()` with progress and an AbortSignal, PostToolUse hooks,
 * and the mapping to tool_result content. Failures come back as outcomes, never as throws.
 */
export async function runCallPipeline(input: CallPipelineInput): Promise<CallOutcome> {
  const { tool, context, hooks } = input
  try {
    if (input.isAborted()) return fail(CANCEL_MESSAGE)
    let callInput = stripInternalKeys(tool, input.parsedInput)
    if (tool.validateInput) {
      const validated = await validate(tool, callInput, context)
      if (!validated.ok) return validated.outcome
      callInput = validated.value
    }

    const hookOutcome =
      hooks === NO_HOOKS ? NO_HOOK_OUTCOME : await hooks.preToolUse(tool, observableCopy(tool, callInput), context)
    if (hookOutcome.blockingReason !== undefined) return fail(hookBlockedMessage(hookOutcome.blockingReason))
    if (hookOutcome.updatedInput) {
      const rewritten = await revalidate(tool, hookOutcome.updatedInput, context)
      if (!rewritten.ok) return rewritten.outcome
      callInput = rewritten.value
    }

    const decision = await input.permissions.decide({
      tool,
      input: observableCopy(tool, callInput),
      context,
      hookOutcome,
    })
    if (decision.behavior === 'deny') return fail(decision.message)
    if (decision.updatedInput) {
      const approved = await revalidate(tool, decision.updatedInput, context)
      if (!approved.ok) return approved.outcome
      callInput = approved.value
    }
    if (input.isAborted()) return fail(CANCEL_MESSAGE)
    return await callAndMap(input, callInput, hookOutcome.additionalContext)
  } catch (fault) {
    return fail(pipelineFaultMessage(tool.name, fault instanceof Error ? fault.message : String(fault)))
  }
}

/** Steps 7–8: the call itself, its post hooks, and the mapping of its data to content. */
async function callAndMap(input: CallPipelineInput, callInput: Input, preContext?: string[]): Promise<CallOutcome> {
  const { tool, context, hooks } = input
  const canUseTool: CanUseToolFn = (anyTool, toolInput, toolContext) =>
    input.permissions.decide({ tool: anyTool, input: toolInput, context: toolContext, hookOutcome: {} })
  let result: Awaited<ReturnType<AnyTool['call']>>
  try {
    result = await tool.call(callInput, context, canUseTool, input.parentMessage, input.onProgress)
  } catch (error) {
    const text = formatThrownError(error)
    const post = await hooks.postToolUseFailure(tool, callInput, text, context)
    const outcome = fail(appendContext(text, [...(preContext ?? []), ...postHookFeedback(post)]) as string)
    const blob = blobOf(error)
    return blob ? { ...outcome, blob } : outcome
  }
  const mapped = tool.mapToolResult(result.data, input.block.id)
  const post = hooks === NO_HOOKS ? NO_HOOK_OUTCOME : await hooks.postToolUse(tool, callInput, result.data, context)
  const extra = [...(preContext ?? []), ...postHookFeedback(post)]
  const isError = mapped.isError === true
  return {
    content: appendContext(mapped.content, extra),
    isError,
    ...(mapped.blob ? { blob: mapped.blob } : {}),
    ...(isError || !result.contextModifier ? {} : { contextModifier: result.contextModifier }),
  }
}
