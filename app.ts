import { randomUUID } from 'node:crypto'
import { createServer } from 'node:http'
import Fastify, { type FastifyServerOptions } from 'fastify'
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import { askWebhookPlugin } from './plugins/ask-webhook.js'
import { auditPlugin } from './plugins/audit.js'
import { authPlugin } from './plugins/auth.js'
import { blobStorePlugin } from './plugins/blob-store.js'
import { clientToolsPlugin } from './plugins/client-tools.js'
import { closeIdleOnShutdownPlugin } from './plugins/close-idle-on-shutdown.js'
import { configPlugin } from './plugins/config.js'
import { connectionLimitsPlugin } from './plugins/connection-limits.js'
import { contentTypesPlugin } from './plugins/content-types.js'
import { answerFrameworkError, errorsPlugin, MAX_PARAM_LENGTH } from './plugins/errors.js'
import { lostRunsPlugin } from './plugins/lost-runs.js'
import { managedAgentsWorkerPlugin } from './plugins/managed-agents-worker.js'
import { mcpEndpointPlugin } from './plugins/mcp-endpoint.js'
import { mcpServersPlugin } from './plugins/mcp-servers.js'
import { metricsPlugin } from './plugins/metrics.js'
import { originGuardPlugin } from './plugins/origin-guard.js'
import { requestIdPlugin } from './plugins/request-id.js'
import { runManagerPlugin } from './plugins/run-manager.js'
import { runMetricsPlugin } from './plugins/run-metrics.js'
import { sandboxPlugin } from './plugins/sandbox.js'
import { secretsPlugin } from './plugins/secrets.js'
import { sessionsPlugin } from './plugins/sessions.js'
import { settingsPlugin } from './plugins/settings.js'
import { storesPlugin } from './plugins/stores.js'
import { swaggerPlugin } from './plugins/swagger.js'
import { telemetryPlugin } from './plugins/telemetry.js'
import { toolPoolPlugin } from './plugins/tool-pool.js'
import { websocketPlugin } from './plugins/websocket.js'
import { consoleRoutes } from './routes/console.js'
import { healthRoutes } from './routes/health.js'
import { mcpRoutes } from './routes/mcp.js'
import { metricsRoutes } from './routes/metrics.js'
import { auditRoutes } from './routes/v1/audit.js'
import { blobsRoutes } from './routes/v1/blobs.js'
import { mcpOAuthRoutes } from './routes/v1/mcp-oauth.js'
import { mcpServersRoutes } from './routes/v1/mcp-servers.js'
import { runControlRoutes } from './routes/v1/runs/control.js'
import { runEventsRoutes } from './routes/v1/runs/events.js'
import { runsRoutes } from './routes/v1/runs/index.js'
import { listRunsRoutes } from './routes/v1/runs/list.js'
import { secretsRoutes } from './routes/v1/secrets.js'
import { sessionsRoutes } from './routes/v1/sessions/index.js'
import { streamRoutes } from './routes/v1/stream/index.js'
import { toolsRoutes } from './routes/v1/tools.js'
import type { Config } from './src/config/config.js'
import type { Settings } from './src/config/settings-schema.js'
import type { RunExecutor, RunExecutorOptions } from './src/executor/run-executor-types.js'
import { type LogStream, loggerOptions } from './src/logging/logger-options.js'
import { SecretRedactor } from './src/secrets/secret-redactor.js'
import type { Stores } from './src/stores/stores.js'
import type { Tools } from './src/tool/tool.js'

/** What tests and embedders may replace; each option goes to the one plugin that uses it. */
export type BuildAppOptions = {
  /** Tools added after the built-ins and MCP tools (tests register controllable tools here). */
  extraTools?: Tools
  /** Replaces the built-in tools (default: every built-in this build has). */
  baseTools?: Tools
  /** The `bash` client tool's per-command timeout (default 120 s; tests shorten it). */
  clientBashTimeoutMs?: number
  /** How often the client tools look for shells of sessions gone (tests lengthen it). */
  clientShellSweepIntervalMs?: number
  /** Fixed MCP tools, added to those of the settings file's `mcpServers`. */
  mcpTools?: Tools
  /** Replaces the settings file named by TOOLEXEC_SETTINGS. */
  settings?: Settings
  stores?: Stores
  createExecutor?: (options: RunExecutorOptions) => RunExecutor
  logger?: FastifyServerOptions['logger']
  /** Where the built console is (default: dist/console under the package root). */
  consoleDirectory?: string
  /** Where the default JSON logger writes (default stdout); tests capture lines here. */
  logStream?: LogStream
}

/**
 * The one composition root: plugins (infrastructure first, then the domain services in the
 * order of their `dependencies`), then routes. The work lives in the plugins.
 */
export async function buildApp(config: Config, options: BuildAppOptions = {}) {
  const { connections } = config
  // Made before the logger: every line it writes is scrubbed of the secret values it knows.
  const redactor = new SecretRedactor()
  const app = Fastify({
    logger: options.logger ?? loggerOptions(config.logLevel, options.logStream, redactor),
    bodyLimit: config.maxBodyBytes,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
    // A peer that sends headers byte by byte is closed after the timeout; the check runs every
    // second (Node's default, 30 s, let a slow peer hold a socket for half a minute more).
    serverFactory: (handler) =>
      createServer(
        {
          headersTimeout: connections.headersTimeoutMs,
          keepAliveTimeout: connections.keepAliveTimeoutMs,
          connectionsCheckingInterval: Math.min(1000, connections.headersTimeoutMs),
        },
        handler,
      ),
    // Only the configured proxies' X-Forwarded-For names the client (docs/security.md#connections).
    trustProxy: connections.trustedProxies.length > 0 ? [...connections.trustedProxies] : false,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // While draining, requests still reach the routes: new runs get a problem+json 503.
    return503OnClosing: false,
  }).withTypeProvider<ZodTypeProvider>()
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)

  await app.register(configPlugin, { config })
  await app.register(settingsPlugin, { settings: options.settings })
  await app.register(secretsPlugin, { redactor })
  await app.register(sandboxPlugin)
  await app.register(errorsPlugin)
  await app.register(contentTypesPlugin)
  await app.register(requestIdPlugin)
  await app.register(closeIdleOnShutdownPlugin)
  // Early: the blob store, hooks and the permission gate count into it.
  await app.register(metricsPlugin)
  await app.register(telemetryPlugin)
  await app.register(swaggerPlugin)
  await app.register(storesPlugin, { stores: options.stores })
  await app.register(auditPlugin)
  await app.register(blobStorePlugin)
  await app.register(sessionsPlugin)
  await app.register(mcpServersPlugin, { tools: options.mcpTools })
  await app.register(clientToolsPlugin, {
    bashTimeoutMs: options.clientBashTimeoutMs,
    shellSweepIntervalMs: options.clientShellSweepIntervalMs,
  })
  await app.register(toolPoolPlugin, { baseTools: options.baseTools, extraTools: options.extraTools })
  await app.register(runManagerPlugin, { createExecutor: options.createExecutor })
  await app.register(askWebhookPlugin)
  await app.register(runMetricsPlugin)
  await app.register(lostRunsPlugin)
  // Before auth: its onRequest hook must see an upgrade request before auth can refuse it.
  await app.register(websocketPlugin)
  // After the WebSocket plugin (it must see an upgrade before anything refuses it), before auth.
  await app.register(connectionLimitsPlugin)
  // Before auth: a page's request is refused whatever key it carries (docs/security.md).
  await app.register(originGuardPlugin)
  await app.register(authPlugin)
  await app.register(mcpEndpointPlugin)
  await app.register(managedAgentsWorkerPlugin)

  await app.register(healthRoutes)
  await app.register(metricsRoutes)
  await app.register(runsRoutes)
  await app.register(listRunsRoutes)
  await app.register(auditRoutes)
  await app.register(runControlRoutes)
  await app.register(runEventsRoutes)
  await app.register(streamRoutes)
  await app.register(sessionsRoutes)
  await app.register(toolsRoutes)
  await app.register(blobsRoutes)
  await app.register(mcpServersRoutes)
  await app.register(mcpOAuthRoutes)
  await app.register(secretsRoutes)
  await app.register(mcpRoutes)
  if (config.console) await app.register(consoleRoutes, { directory: options.consoleDirectory })
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>
