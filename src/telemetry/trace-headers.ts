import { context, propagation, ROOT_CONTEXT } from '@opentelemetry/api'
import { isTracingEnabled } from './tracing-switch.js'

/**
 * The W3C trace headers (`traceparent`, `tracestate`) of the active span, for HTTP hooks and MCP
 * calls' `params._meta`; empty while tracing is off or outside a traced call.
 */
export function traceHeaders(): { [name: string]: string } {
  const headers: { [name: string]: string } = {}
  if (isTracingEnabled()) propagation.inject(context.active(), headers)
  return headers
}

/**
 * Calls `work` inside the trace a request's W3C headers name (a new trace without them), so a
 * run it starts becomes a child of the caller's span.
 */
export function runInRequestTrace(headers: { [name: string]: string | string[] | undefined }, work: () => void): void {
  context.with(propagation.extract(ROOT_CONTEXT, headers), work)
}
