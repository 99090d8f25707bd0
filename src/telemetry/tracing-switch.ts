/**
 * Whether toolexec makes spans. Off by default, so the hot path pays one boolean check per call
 * and per run; whoever registers an OpenTelemetry SDK turns it on (server.ts from the standard
 * `OTEL_*` variables, tests with an in-memory exporter). docs/adr/0135-opentelemetry-tracing.md
 */
let tracing = false

export function setTracingEnabled(enabled: boolean): void {
  tracing = enabled
}

export function isTracingEnabled(): boolean {
  return tracing
}
