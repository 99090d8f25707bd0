import { noSuchToolMessage, pipelineFaultMessage, wrapToolUseError } from '../messages/tool-error-messages.js'
import { findToolByName } from '../tool/find-tool.js'
import { parseToolInput } from '../tool/parse-tool-input.js'
import type { Tools } from '../tool/tool.js'
import type { CallOutcome } from './call-pipeline.js'
import { isCallConcurrencySafe, type TrackedCall } from './tracked-call.js'

/**
 * Steps 1 and 3 of call-pipeline.ts, run at queue time: find the tool and parse the input,
 * which also decides whether the call is concurrency-safe. Returns the error text when the call cannot run at all (unknown tool,
 * invalid input): such calls count as unsafe and get their result at once.
 */
function admitCall(call: TrackedCall, tools: Tools): string | undefined {
  const tool = findToolByName(tools, call.block.name)
  if (!tool) return noSuchToolMessage(call.block.name, sameNameInAnotherCase(tools, call.block.name))
  call.tool = tool
  const parsed = parseToolInput(tool, call.block.input)
  if (!parsed.ok) return parsed.message
  call.parsedInput = parsed.data
  call.safe = isCallConcurrencySafe(tool, parsed.data)
  return undefined
}

/**
 * admitCall that never throws: it runs in a microtask, where a throw would escape every handler
 * and stop the process (docs/adr/0097-process-survives-faults-at-our-boundaries.md). A fault
 * becomes the call's error text, and the call counts as unsafe.
 */
export function admitCallSafely(call: TrackedCall, tools: Tools): string | undefined {
  try {
    return admitCall(call, tools)
  } catch (fault) {
    call.safe = false
    call.parsedInput = undefined
    return pipelineFaultMessage(call.tool?.name ?? call.block.name, String(fault))
  }
}

/** `bash` for `Bash`: the slip a developer otherwise finds only in the model's next turn. */
function sameNameInAnotherCase(tools: Tools, name: string): string | undefined {
  const lower = name.toLowerCase()
  return tools.find((tool) => tool.name.toLowerCase() === lower)?.name
}

/**
 * The outcome of a block that had one before it was queued here, or undefined. Either way it
 * does not run and says nothing of its siblings: it was settled before this instance had the
 * run (taken over from a lost one), or refused before it could run (streamed input cut off).
 */
export function outcomeBeforeAdmission(call: TrackedCall): CallOutcome | undefined {
  if (call.settled === undefined && call.refusal === undefined) return undefined
  call.stoppedByEngine = true
  return call.settled ?? { content: wrapToolUseError(call.refusal as string), isError: true }
}

/** The tool.queued event of an admitted call: its safety is known once its input is parsed. */
export function queuedEvent(call: TrackedCall) {
  const { id, name, input } = call.block
  return { type: 'tool.queued' as const, tool_use_id: id, name, input, concurrency_safe: call.safe }
}
