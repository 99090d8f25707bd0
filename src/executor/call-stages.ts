import type { ToolResultContent, ToolUseBlock } from '../messages/content-blocks.js'
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
  MappedToolResult,
  ToolCallError,
  ToolProgressData,
  ToolResult,
  ToolUseContext,
} from '../tool/tool.js'
import type { CallOutcome, PipelineRun } from './call-pipeline.js'
import { formatThrownError } from './format-thrown-error.js'
import { NO_HOOKS, type PostToolUseOutcome, type PreToolUseOutcome } from './hook-runner.js'
import type { PermissionGate } from './permission-gate.js'

/**
 * The stages of call-pipeline.ts that may await: the tool's validateInput, hooks, an input
 * rewritten by the gate, and a call that failed. The common path takes none of them.
 */

type Input = { [key: string]: unknown }
type StageResult<T> = { ok: true; value: T } | { ok: false; outcome: CallOutcome }

/** Everything the awaiting stages need, made only when a call takes one of them. */
export type StagesInput = PipelineRun & {
  tool: AnyTool
  block: ToolUseBlock
  context: ToolUseContext
  onProgress: (data: ToolProgressData) => void
  isAborted: () => boolean
}

export const fail = (content: string): CallOutcome => ({ content, isError: true })

export const faultOf = (tool: AnyTool, fault: unknown): CallOutcome =>
  fail(pipelineFaultMessage(tool.name, fault instanceof Error ? fault.message : String(fault)))

/** With no hooks configured the hook stages are skipped outright: no await, no allocation. */
export const NO_HOOK_OUTCOME: PreToolUseOutcome & PostToolUseOutcome = Object.freeze({})

/** Step 8's mapping; a throw in it is the pipeline's fault. */
export function outcomeOf(tool: AnyTool, block: ToolUseBlock, result: ToolResult<unknown>): CallOutcome {
  try {
    return outcomeFrom(tool.mapToolResult(result.data, block.id), result, undefined)
  } catch (fault) {
    return faultOf(tool, fault)
  }
}

function outcomeFrom(
  mapped: MappedToolResult,
  result: ToolResult<unknown>,
  content: ToolResultContent | undefined,
): CallOutcome {
  const isError = mapped.isError === true
  const outcome: CallOutcome = { content: content ?? mapped.content, isError }
  if (mapped.blob) outcome.blob = mapped.blob
  if (!isError && result.contextModifier) outcome.contextModifier = result.contextModifier
  return outcome
}

/**
 * Step 6, second half: the permission gate allows (maybe with a new input, which the caller
 * revalidates) or denies. The gate may answer at once (docs/adr/0441).
 */
export function checkPermission(
  permissions: PermissionGate,
  tool: AnyTool,
  callInput: Input,
  context: ToolUseContext,
  hookOutcome: PreToolUseOutcome,
): PermissionDecision | Promise<PermissionDecision> {
  return permissions.decide({ tool, input: observableCopy(tool, callInput), context, hookOutcome })
}

/** Steps 4 to 8 for a call when hooks are configured: each stage may await. */
export async function stagedPipeline(input: StagesInput, callInput: Input): Promise<CallOutcome> {
  const { tool, context } = input
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
  const decision = await checkPermission(input.permissions, tool, callInput, context, hookOutcome)
  if (decision.behavior === 'deny') return { ...fail(decision.message), denied: true }
  if (rewrites(decision, callInput)) {
    const rewritten = await revalidate(tool, decision.updatedInput, context)
    if (!rewritten.ok) return rewritten.outcome
    callInput = rewritten.value
  }
  if (input.isAborted()) return fail(CANCEL_MESSAGE)
  return callTool(input, callInput, hookOutcome.additionalContext)
}

/**
 * Whether an allow replaces the call's input. An `updatedInput` that is the very object the gate
 * was shown is no rewrite: the default `checkPermissions` hands its input back, as Claude Code's
 * tools do, and parsing and validating it again repeated steps 3 and 4 for nothing
 * (docs/adr/0584-an-input-handed-back-unchanged-is-not-a-rewrite.md). A tool that changes the
 * input returns a new object, which is validated again as before.
 */
export function rewrites<D extends { updatedInput?: Input }>(
  decision: D,
  callInput: Input,
): decision is D & { updatedInput: Input } {
  return decision.updatedInput !== undefined && decision.updatedInput !== callInput
}

/** The common path's gate allowed with a new input: revalidated, then called like any other. */
export async function rewrittenCall(input: StagesInput, updatedInput: Input): Promise<CallOutcome> {
  const rewritten = await revalidate(input.tool, updatedInput, input.context)
  if (!rewritten.ok) return rewritten.outcome
  if (input.isAborted()) return fail(CANCEL_MESSAGE)
  return callTool(input, rewritten.value, undefined)
}

/** Step 4's refusal: the tool's message as the model sees it. */
export const refusedInput = (message: string): CallOutcome => fail(wrapToolUseError(message))

/** Step 4 (and again for inputs rewritten by hooks or an approver): the tool's semantic checks. */
async function validateInput(tool: AnyTool, input: Input, context: ToolUseContext): Promise<StageResult<Input>> {
  if (!tool.validateInput) return { ok: true, value: input }
  const result = await tool.validateInput(input, context)
  return result.result ? { ok: true, value: input } : { ok: false, outcome: refusedInput(result.message) }
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

/** Step 6, first half: PreToolUse hooks may block the call or rewrite its input (skipped with none set). */
async function runPreHooks(
  input: StagesInput,
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

/** Steps 7–8 on the staged path: the call itself, its post hooks, and the mapping of its data to content. */
async function callTool(input: StagesInput, callInput: Input, preContext: string[] | undefined): Promise<CallOutcome> {
  const { tool, context } = input
  let result: ToolResult<unknown>
  try {
    result = await tool.call(callInput, context, input.canUseTool, input.parentMessage, input.onProgress)
  } catch (error) {
    return failedCall(input, callInput, error, preContext)
  }
  const mapped = tool.mapToolResult(result.data, input.block.id)
  if (input.hooks === NO_HOOKS && preContext === undefined) return outcomeFrom(mapped, result, undefined)
  const post = input.hooks === NO_HOOKS ? NO_HOOK_OUTCOME : await runPostHooks(input, callInput, result.data)
  const content = appendContext(mapped.content, [...(preContext ?? []), ...postHookFeedback(post)])
  return outcomeFrom(mapped, result, content)
}

/** Step 7 for a call that threw: its text, the failure hooks' feedback, and any blob it stored. */
export async function failedCall(
  input: StagesInput,
  callInput: Input,
  error: unknown,
  preContext: string[] | undefined,
): Promise<CallOutcome> {
  const { tool, context } = input
  const text = formatThrownError(error)
  const post = await input.hooks.postToolUseFailure(tool, callInput, text, context)
  const outcome = fail(appendContext(text, [...(preContext ?? []), ...postHookFeedback(post)]) as string)
  const blob = blobOf(error)
  return blob ? { ...outcome, blob } : outcome
}

/** Step 7, after a call that returned: PostToolUse hooks add context or a block message. */
function runPostHooks(input: StagesInput, callInput: Input, data: unknown): Promise<PostToolUseOutcome> {
  return input.hooks.postToolUse(input.tool, callInput, data, input.context)
}
