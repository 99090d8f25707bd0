import { pipelineFaultMessage } from '../messages/tool-error-messages.js'
import type { CallSpan } from '../telemetry/call-span.js'
import type { ToolProgressData, ToolUseContext } from '../tool/tool.js'
import { type PipelineRun, runCallPipeline } from './call-pipeline.js'
import type { RunSink } from './run-sink.js'
import { handOver } from './settle-or-abort.js'
import type { TrackedCall } from './tracked-call.js'

const RESOLVED = Promise.resolve()

export type OnProgress = (data: ToolProgressData) => void

/**
 * The tool's progress callback: a closure over the sink and the call alone, made in its own
 * scope rather than the executor's (docs/adr/0433); progress after the call's end is dropped.
 */
export function progressOf(sink: RunSink, call: TrackedCall): OnProgress {
  return (data) => {
    if (call.status === 'executing') sink.event({ type: 'tool.progress', tool_use_id: call.block.id, data })
  }
}

/** With tracing on, the pipeline runs with the call's span active. Not inline: see progressOf. */
export function runInSpan(
  pipelineRun: PipelineRun,
  span: CallSpan,
  call: TrackedCall,
  context: ToolUseContext,
  onProgress: OnProgress,
): void {
  span.run(() => runCallPipeline(pipelineRun, call, context, onProgress), undefined)
}

/** A pipeline that threw before it could settle: its text, in a later microtask like every outcome. */
export function faultLater(call: TrackedCall, fault: string): void {
  RESOLVED.then(() => handOver(call, { content: pipelineFaultMessage(call.tool!.name, fault), isError: true }))
}
