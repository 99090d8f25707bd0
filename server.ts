import { NodeSDK } from '@opentelemetry/sdk-node'
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { releaseMemoryWhenIdle } from './src/async/release-memory-when-idle.js'
import { loadConfig } from './src/config/load-config.js'
import { SettingsError } from './src/config/settings-schema.js'
import { ConfigError } from './src/errors/config-error.js'
import { McpSettingsError } from './src/mcp/client/mcp-settings-schema.js'
import { tracesRequested } from './src/telemetry/traces-requested.js'
import { setTracingEnabled } from './src/telemetry/tracing-switch.js'

/**
 * The OpenTelemetry SDK, configured by the standard OTEL_* variables (exporter, endpoint, service
 * name, sampler, propagators), when they ask for traces; undefined otherwise (docs/operations.md).
 */
function startTracing(): NodeSDK | undefined {
  if (!tracesRequested(process.env)) return undefined
  const sdk = new NodeSDK({ serviceName: process.env.OTEL_SERVICE_NAME?.trim() || 'toolexec' })
  sdk.start()
  setTracingEnabled(true)
  return sdk
}

const LISTEN_BACKLOG = 4096

/** The only file that listens: config from the environment, the app, and a graceful shutdown. */
async function main(): Promise<void> {
  const tracing = startTracing()
  let config: ReturnType<typeof loadConfig>
  let app: Awaited<ReturnType<typeof buildApp>>
  try {
    config = loadConfig(process.env)
    app = await buildApp(config)
  } catch (error) {
    // A bad environment or settings file: a readable message and exit 1, no stack trace.
    if (error instanceof ConfigError || error instanceof SettingsError || error instanceof McpSettingsError) {
      process.stderr.write(`toolexec: ${error.message}\n`)
      process.exit(1)
    }
    throw error
  }
  // The grace period covers the run drain (TOOLEXEC_SHUTDOWN_GRACE_MS) plus the cancel that follows it.
  closeWithGrace({ delay: config.shutdownGraceMs + 5000, logger: false }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an uncaught error')
    else app.log.info({ signal }, 'shutting down')
    await app.close()
    // Spans still buffered leave before the process does.
    await tracing?.shutdown()
  })
  // A deep accept queue: under a burst of connections (or a flood the caps refuse) a client's
  // SYN waits in it instead of being dropped and retried a second later. The kernel caps it at
  // net.core.somaxconn (docs/adr/0231-connection-caps.md).
  await app.listen({ host: config.host, port: config.port, backlog: LISTEN_BACKLOG })
  // The heap a burst grew goes back once the service is idle (docs/adr/0162-compact-the-heap-when-idle-after-load.md).
  releaseMemoryWhenIdle({ onRelease: (release) => app.log.debug(release, 'heap compacted while idle') })
}

await main()
