import { type Context, context, SpanStatusCode, trace } from '@opentelemetry/api'
import { isTracingEnabled } from './tracing-switch.js'

export type RunSpan = {
  /** The parent of the run's call spans; undefined while tracing is off. */
  readonly context: Context | undefined
  end(status: string): void
}

const NO_RUN_SPAN: RunSpan = Object.freeze({ context: undefined, end: () => {} })

/**
 * One span per run, a child of the context active when the run starts (the request's W3C
 * `traceparent` when there is one). docs/adr/0135-opentelemetry-tracing.md
 */
export function startRunSpan(runId: string): RunSpan {
  if (!isTracingEnabled()) return NO_RUN_SPAN
  const parent = context.active()
  const span = trace
    .getTracer('toolexec')
    .startSpan('toolexec.run', { attributes: { 'toolexec.run.id': runId } }, parent)
  return {
    context: trace.setSpan(parent, span),
    end(status) {
      span.setAttribute('toolexec.run.status', status)
      if (status === 'failed') span.setStatus({ code: SpanStatusCode.ERROR })
      span.end()
    },
  }
}

/** `finished`, ending the run span with the run's status once it settles. */
export function endingRunSpan<Outcome extends { status: string }>(
  finished: Promise<Outcome>,
  span: RunSpan,
): Promise<Outcome> {
  return finished.then(
    (outcome) => {
      span.end(outcome.status)
      return outcome
    },
    (fault: unknown) => {
      span.end('failed')
      throw fault
    },
  )
}
