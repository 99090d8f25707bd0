import type { AssistantMessage, ToolResultContent, ToolUseBlock } from '../messages/content-blocks.js'
import { CANCEL_MESSAGE } from '../messages/tool-error-messages.js'
import type { BlobRef } from '../results/blob-store.js'
import { stripInternalKeys } from '../tool/parse-tool-input.js'
import type { PermissionDecision } from '../tool/permission-result.js'
import type {
  AnyTool,
  CanUseToolFn,
  ContextModifier,
  ToolProgressData,
  ToolResult,
  ToolUseContext,
  ValidationResult,
} from '../tool/tool.js'
import {
  checkPermission,
  fail,
  failedCall,
  faultOf,
  NO_HOOK_OUTCOME,
  outcomeOf,
  refusedInput,
  rewrites,
  rewrittenCall,
  type StagesInput,
  stagedPipeline,
} from './call-stages.js'
import { type HookRunner, NO_HOOKS } from './hook-runner.js'
import type { PermissionGate } from './permission-gate.js'
import { handOver } from './settle-or-abort.js'

export type CallOutcome = {
  content: ToolResultContent
  isError: boolean
  /** Set when the tool stored its full output itself (see MappedToolResult.blob). */
  blob?: BlobRef
  contextModifier?: ContextModifier
  /** The call never ran: a permission deny, or a hook that blocked it (the audit trail's `denied`). */
  denied?: true
}

/** What every call of one run shares: made once per run, not per call. */
export type PipelineRun = {
  parentMessage: AssistantMessage
  permissions: PermissionGate
  hooks: HookRunner
  /** What the tool may ask the gate about nested calls. */
  canUseTool: CanUseToolFn
}

/** One call as the pipeline sees it: the executor's tracked call (tracked-call.ts) fits. */
export type PipelineCall = {
  readonly block: ToolUseBlock
  readonly tool: AnyTool | undefined
  /** Output of step 3, done by the scheduler when the block was queued. */
  readonly parsedInput: { [key: string]: unknown } | undefined
  /** Set when the executor aborted the call; cheaper than touching the lazily made signal. */
  readonly abortReason: unknown
  /**
   * Takes the outcome (through handOver, once), always in a later microtask than the start; the
   * call itself comes as the second argument, typed by whoever set it (docs/adr/0433).
   */
  settle: ((outcome: CallOutcome | undefined, call: never) => void) | undefined
}

type Input = { [key: string]: unknown }
type OnProgress = (data: ToolProgressData) => void

const RESOLVED = Promise.resolve()

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
 * Failures come back as outcomes, never as throws: one call never fails a run. The outcome goes
 * to `call.settle` (settle-or-abort.ts), always in a later microtask. The common path (no hooks,
 * a gate that answers at once) runs up to the tool's own promise synchronously and allocates no
 * async frame of its own (docs/adr/0441-the-call-pipeline-is-callback-shaped.md); a tool's
 * `validateInput` joins it once its promise settles (docs/adr/0515). The other paths (hooks, an
 * input rewritten by the gate, a call that threw) are call-stages.ts.
 */
export function runCallPipeline(run: PipelineRun, call: PipelineCall, context: ToolUseContext, onProgress: OnProgress) {
  const tool = call.tool as AnyTool
  try {
    if (call.abortReason !== undefined) {
      later(call, fail(CANCEL_MESSAGE))
      return
    }
    const callInput = stripInternalKeys(tool, call.parsedInput as Input)
    if (run.hooks !== NO_HOOKS) {
      settleWith(call, tool, stagedPipeline(stagesOf(run, call, context, onProgress), callInput))
      return
    }
    if (tool.validateInput) {
      afterValidation(run, call, context, onProgress, callInput, tool.validateInput(callInput, context))
      return
    }
    decide(run, call, context, onProgress, callInput)
  } catch (fault) {
    later(call, faultOf(tool, fault))
  }
}

/** Step 6 on the common path: the gate's answer at once, or its promise. */
function decide(
  run: PipelineRun,
  call: PipelineCall,
  context: ToolUseContext,
  onProgress: OnProgress,
  callInput: Input,
) {
  const decision = checkPermission(run.permissions, call.tool as AnyTool, callInput, context, NO_HOOK_OUTCOME)
  if (!isPromise(decision)) afterDecision(run, call, context, onProgress, callInput, decision)
  else afterGate(run, call, context, onProgress, callInput, decision)
}

/**
 * Step 4 with no hooks: once the tool's own checks pass, the call goes on along the common path,
 * in the same order and with the same texts as call-stages.ts would give it, without its async
 * frames (docs/adr/0515-a-validated-call-takes-the-common-path.md).
 */
function afterValidation(
  run: PipelineRun,
  call: PipelineCall,
  context: ToolUseContext,
  onProgress: OnProgress,
  callInput: Input,
  validation: Promise<ValidationResult>,
): void {
  const tool = call.tool as AnyTool
  Promise.resolve(validation).then(
    (result) => {
      // A gate that throws at once is the call's fault, as in runCallPipeline's own try.
      try {
        if (!result.result) handOver(call, refusedInput(result.message))
        else decide(run, call, context, onProgress, callInput)
      } catch (fault) {
        handOver(call, faultOf(tool, fault))
      }
    },
    (fault: unknown) => handOver(call, faultOf(tool, fault)),
  )
}

/**
 * A gate that answered with a promise. Its own function, so the closures' scope is made only on
 * this path: captured by closures in runCallPipeline, its arguments would be copied into a new
 * scope object on every call (docs/adr/0433-a-call-carries-what-its-end-needs.md).
 */
function afterGate(
  run: PipelineRun,
  call: PipelineCall,
  context: ToolUseContext,
  onProgress: OnProgress,
  callInput: Input,
  decision: Promise<PermissionDecision>,
): void {
  decision.then(
    (answer) => afterDecision(run, call, context, onProgress, callInput, answer),
    (fault: unknown) => handOver(call, faultOf(call.tool as AnyTool, fault)),
  )
}

/** An outcome known at once still arrives in a later microtask, as every outcome does. */
function later(call: PipelineCall, outcome: CallOutcome): void {
  RESOLVED.then(() => handOver(call, outcome))
}

/** The outcome of an awaiting stage, or its fault's text. */
function settleWith(call: PipelineCall, tool: AnyTool, outcome: Promise<CallOutcome>): void {
  outcome.then(
    (value) => handOver(call, value),
    (fault: unknown) => handOver(call, faultOf(tool, fault)),
  )
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | undefined)?.then === 'function'
}

/** The rest of the common path once the gate answered: a deny or a rewrite leave it. */
function afterDecision(
  run: PipelineRun,
  call: PipelineCall,
  context: ToolUseContext,
  onProgress: OnProgress,
  callInput: Input,
  decision: PermissionDecision,
): void {
  const tool = call.tool as AnyTool
  try {
    if (decision.behavior === 'deny') {
      later(call, { ...fail(decision.message), denied: true })
    } else if (rewrites(decision, callInput)) {
      settleWith(call, tool, rewrittenCall(stagesOf(run, call, context, onProgress), decision.updatedInput))
    } else if (call.abortReason !== undefined) {
      later(call, fail(CANCEL_MESSAGE))
    } else awaitTool(run, call, context, onProgress, callInput)
  } catch (fault) {
    later(call, faultOf(tool, fault))
  }
}

/** Step 7 on the common path: the tool's promise and its two reactions, the only closures of a call's pipeline. */
function awaitTool(
  run: PipelineRun,
  call: PipelineCall,
  context: ToolUseContext,
  onProgress: OnProgress,
  callInput: Input,
): void {
  startTool(call.tool as AnyTool, callInput, context, run, onProgress).then(
    (result) => handOver(call, outcomeOf(call.tool as AnyTool, call.block, result)),
    (error: unknown) =>
      settleWith(
        call,
        call.tool as AnyTool,
        failedCall(stagesOf(run, call, context, onProgress), callInput, error, undefined),
      ),
  )
}

function stagesOf(run: PipelineRun, call: PipelineCall, context: ToolUseContext, onProgress: OnProgress): StagesInput {
  return {
    ...run,
    tool: call.tool as AnyTool,
    block: call.block,
    context,
    onProgress,
    isAborted: () => call.abortReason !== undefined,
  }
}

/** Step 7's call: a tool that throws instead of rejecting is a rejection all the same. */
function startTool(
  tool: AnyTool,
  callInput: Input,
  context: ToolUseContext,
  run: PipelineRun,
  onProgress: OnProgress,
): Promise<ToolResult<unknown>> {
  try {
    const pending = tool.call(callInput, context, run.canUseTool, run.parentMessage, onProgress)
    return isPromise(pending) ? pending : Promise.resolve(pending)
  } catch (error) {
    return Promise.reject(error)
  }
}
