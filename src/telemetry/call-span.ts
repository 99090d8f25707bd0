import { type Context, context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'

export type CallSpan = {
  /** Calls `work(input)` with the span active, so hooks and MCP calls made inside carry its traceparent. */
  run<Input, Output>(work: (input: Input) => Output, input: Input): Output
  /** `errorType` set: the call failed (an `error.type` attribute and an error status). */
  end(errorType?: string): void
}

const NO_CALL_SPAN: CallSpan = Object.freeze({
  run: <Input, Output>(work: (input: Input) => Output, input: Input) => work(input),
  end: () => {},
})

/**
 * The `execute_tool {name}` span of one call, after the GenAI semantic conventions (see
 * docs/operations.md, "Tracing"). `parent` is the run span's context; undefined means tracing is off.
 */
export function startCallSpan(parent: Context | undefined, toolName: string, toolUseId: string): CallSpan {
  if (parent === undefined) return NO_CALL_SPAN
  const span = trace.getTracer('toolexec').startSpan(
    `execute_tool ${toolName}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': toolName,
        'gen_ai.tool.call.id': toolUseId,
        // MCP servers' tools extend the agent; the built-ins are plain functions to the model.
        'gen_ai.tool.type': toolName.startsWith('mcp__') ? 'extension' : 'function',
      },
    },
    parent,
  )
  const active = trace.setSpan(parent, span)
  return {
    run: (work, input) => context.with(active, work, undefined, input),
    end(errorType) {
      if (errorType !== undefined) {
        span.setAttribute('error.type', errorType)
        span.setStatus({ code: SpanStatusCode.ERROR })
      }
      span.end()
    },
  }
}
