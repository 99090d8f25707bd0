import type { ToolResultBlock, ToolUseBlock } from '../messages/content-blocks.js'
import type { BlobRef } from '../results/blob-store.js'
import type { CallSpan } from '../telemetry/call-span.js'
import type { AnyTool, ContextModifier } from '../tool/tool.js'
import type { AbortReason } from './abort-reason.js'
import type { CallOutcome } from './call-pipeline.js'
import { graceAfterAbort } from './settle-or-abort.js'

/** queued → executing → completed → yielded (docs/design.md §6); `completed` means the outcome is known. */
type CallStatus = 'queued' | 'executing' | 'completed' | 'yielded'

export type TrackedCall = {
  readonly index: number
  readonly block: ToolUseBlock
  /** Created on first use of the call's signal: most calls never look at it (see abortCall). */
  controller: AbortController | undefined
  /** Set once, when the executor aborts the call. */
  abortReason: AbortReason | undefined
  tool: AnyTool | undefined
  /** Cleared once the call started: only its start reads it (docs/adr/0433). */
  parsedInput: { [key: string]: unknown } | undefined
  /** Decided once at queue time: parsed input AND isConcurrencySafe(parsed) without throwing. */
  safe: boolean
  status: CallStatus
  /** Milliseconds since the run's executor was made. */
  startedAt: number | undefined
  /** The call's span while it runs (the shared no-op span when tracing is off). */
  span: CallSpan | undefined
  /** Cleared once `result` is made from it (docs/adr/0433). */
  outcome: CallOutcome | undefined
  /** The block after the per-tool size threshold; set before the call may be yielded. */
  result: ToolResultBlock | undefined
  blob: BlobRef | undefined
  timer: NodeJS.Timeout | undefined
  /** Takes the call's outcome while it runs; cleared by the first hand-over (settle-or-abort.ts). */
  settle: ((outcome: CallOutcome | undefined, call: TrackedCall) => void) | undefined
  /** Set when the block was refused before it could run (streamed input cut off): its error text. */
  refusal: string | undefined
  /** The outcome a block already had when its run was taken over from a lost instance. */
  settled: (CallOutcome & { lost?: boolean }) | undefined
  /** The error result came from the engine stopping the call, not the call failing: it never cascades. */
  stoppedByEngine: boolean
  /** A concurrency-safe call's context modifier, applied once its group is over, in block order. */
  deferredModifier: ContextModifier | undefined
  /** The sink was told of its result while it waited behind an earlier block (RunSink.held). */
  heldTold: boolean
}

/**
 * A queued call with every field present from the start: fields added later would move the object
 * to out-of-object storage and reallocate it as it grows, per call
 * (docs/adr/0440-a-call-allocates-its-shape-once.md).
 */
export function trackCall(
  index: number,
  block: ToolUseBlock,
  refusal: string | undefined,
  settled: TrackedCall['settled'],
): TrackedCall {
  return {
    index,
    block,
    controller: undefined,
    abortReason: undefined,
    tool: undefined,
    parsedInput: undefined,
    safe: false,
    status: 'queued',
    startedAt: undefined,
    span: undefined,
    outcome: undefined,
    result: undefined,
    blob: undefined,
    timer: undefined,
    settle: undefined,
    refusal,
    settled,
    stoppedByEngine: false,
    deferredModifier: undefined,
    heldTold: false,
  }
}

/** Every abort goes through here, so the executor can stop waiting without signal listeners. */
export function abortCall(call: TrackedCall, reason: AbortReason): void {
  if (call.abortReason !== undefined) return
  call.abortReason = reason
  call.controller?.abort(reason)
  if (call.settle) graceAfterAbort(call)
}

/** The call's AbortSignal, created lazily (already aborted if the call was). */
export function callSignal(call: TrackedCall): AbortSignal {
  if (!call.controller) {
    call.controller = new AbortController()
    if (call.abortReason !== undefined) call.controller.abort(call.abortReason)
  }
  return call.controller.signal
}

/** Classifies a call for scheduling; a throwing `isConcurrencySafe` counts as unsafe. */
export function isCallConcurrencySafe(tool: AnyTool, input: { [key: string]: unknown }): boolean {
  try {
    return tool.isConcurrencySafe(input) === true
  } catch {
    return false
  }
}
