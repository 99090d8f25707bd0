import fp from 'fastify-plugin'
import { runInRequestTrace } from '../src/telemetry/trace-headers.js'
import { isTracingEnabled } from '../src/telemetry/tracing-switch.js'

/**
 * With tracing on, each request's handler runs inside the trace its `traceparent` names: the run
 * it starts is a child of the caller's span (docs/adr/0135-opentelemetry-tracing.md). preHandler
 * is the last hook before the handler and runs after the body is read, whose stream events would
 * otherwise lose the context; calling `done` inside it carries the context into the handler.
 */
export const telemetryPlugin = fp(
  async (app) => {
    if (!isTracingEnabled()) return
    app.addHook('preHandler', (request, _reply, done) => runInRequestTrace(request.headers, done))
  },
  { name: 'telemetry' },
)
