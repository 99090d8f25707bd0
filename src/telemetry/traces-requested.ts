/**
 * Whether the standard OpenTelemetry variables ask for traces: an exporter other than `none`, or
 * an OTLP endpoint, and the SDK not disabled. Unset means off: the SDK's own default would be to
 * export to localhost:4318, which nobody asked for (docs/adr/0135-opentelemetry-tracing.md).
 */
export function tracesRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false
  const exporters = env.OTEL_TRACES_EXPORTER?.trim()
  if (exporters) return exporters.split(',').some((name) => name.trim() !== 'none')
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim())
}
