import { randomUUID } from 'node:crypto'
import Fastify, { type FastifyServerOptions } from 'fastify'
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import { authPlugin } from './plugins/auth.js'
import { blobStorePlugin } from './plugins/blob-store.js'
import { configPlugin } from './plugins/config.js'
import { errorsPlugin } from './plugins/errors.js'
import { mcpEndpointPlugin } from './plugins/mcp.js'
import { mcpServersPlugin } from './plugins/mcp-servers.js'
import { metricsPlugin } from './plugins/metrics.js'
import { runManagerPlugin } from './plugins/run-manager.js'
import { sessionsPlugin } from './plugins/sessions.js'
import { storesPlugin } from './plugins/stores.js'
import { swaggerPlugin } from './plugins/swagger.js'
import { toolPoolPlugin } from './plugins/tool-pool.js'
import { websocketPlugin } from './plugins/websocket.js'
import { healthRoutes } from './routes/health.js'
import { mcpRoutes } from './routes/mcp.js'
import { metricsRoutes } from './routes/metrics.js'
import { blobsRoutes } from './routes/v1/blobs.js'
import { mcpServersRoutes } from './routes/v1/mcp-servers.js'
import { runControlRoutes } from './routes/v1/runs/control.js'
import { runEventsRoutes } from './routes/v1/runs/events.js'
import { runsRoutes } from './routes/v1/runs/index.js'
import { sessionsRoutes } from './routes/v1/sessions/index.js'
import { streamRoutes } from './routes/v1/stream/index.js'
import { toolsRoutes } from './routes/v1/tools.js'
import type { Config } from './src/config/config.js'
import { ConfigError } from './src/config/config-error.js'
import { loadSettings, type Settings } from './src/config/settings-schema.js'
import { createRunExecutor } from './src/executor/run-executor.js'
import type { RunExecutor, RunExecutorOptions } from './src/executor/run-executor-types.js'
import { createHookRunner } from './src/hooks/create-hook-runner.js'
import type { McpServersInput } from './src/mcp/client/mcp-settings-schema.js'
import { createPermissionGate } from './src/permissions/create-permission-gate.js'
import { assembleToolPool } from './src/registry/assemble-tool-pool.js'
import { getAllBaseTools } from './src/registry/get-all-base-tools.js'
import type { Stores } from './src/stores/stores.js'
import { findToolByName } from './src/tool/find-tool.js'
import { toApiToolDefinition } from './src/tool/to-api-definition.js'
import type { Tools } from './src/tool/tool.js'
import { detectSandbox } from './src/tools/bash/sandbox.js'

export type BuildAppOptions = {
  /** Tools added after the built-ins and MCP tools (tests register controllable tools here). */
  extraTools?: Tools
  /** Replaces the built-in tools (default: every built-in this build has). */
  baseTools?: Tools
  /** Fixed MCP tools, added to those of the settings file's `mcpServers`. */
  mcpTools?: Tools
  /** Replaces the settings file named by TOOLEXEC_SETTINGS. */
  settings?: Settings
  stores?: Stores
  createExecutor?: (options: RunExecutorOptions) => RunExecutor
  logger?: FastifyServerOptions['logger']
  /** Where the default JSON logger writes (default stdout); tests capture lines here. */
  logStream?: { write(line: string): void }
}

// Tool inputs can hold secrets: never log them, wherever they appear.
const REDACTED_PATHS = [
  'input',
  '*.input',
  'tool_use.input',
  'tool_uses[*].input',
  '*.tool_uses[*].input',
  'message.content[*].input',
  'updated_input',
  '*.updated_input',
  'req.headers.authorization',
]

/** The one composition root: plugins (infrastructure, domain services), then routes. */
export async function buildApp(config: Config, options: BuildAppOptions = {}) {
  const app = Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { req: (request) => ({ method: request.method, url: stripAccessToken(request.url) }) },
      ...(options.logStream ? { stream: options.logStream } : {}),
    },
    bodyLimit: config.maxBodyBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    // While draining, requests still reach the routes: new runs get a problem+json 503.
    return503OnClosing: false,
  }).withTypeProvider<ZodTypeProvider>()
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  // Bodies are JSON only: anything else is a 415 rather than a confusing schema error.
  app.removeContentTypeParser('text/plain')
  // An empty JSON body means "no body": `curl -X POST -H 'content-type: application/json'` on a
  // route whose body is optional (cancel, sessions) must not be a 400. The rest is fastify's
  // own parser, prototype-poisoning checks included.
  const parseJson = app.getDefaultJsonParser('error', 'error')
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body)
    if (text.trim() === '') return done(null, undefined)
    parseJson(request, text, done)
  })
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id)
  })

  const settings = options.settings ?? (config.settingsPath ? loadSettings(config.settingsPath) : {})
  const sandbox = sandboxOrConfigError(config.sandbox)
  const tenants = new Set(config.apiKeys.map((key) => key.tenant)).size
  // Several tenants and no sandbox: Bash could read another tenant's files, so it is left out.
  const bashDisabled = tenants > 1 && sandbox.sandbox === 'off'
  if (bashDisabled) {
    app.log.warn({ reason: sandbox.reason }, 'Bash is disabled for tenants: no usable sandbox with several tenants')
  } else app.log.info({ sandbox: sandbox.sandbox, reason: sandbox.reason }, 'sandbox')
  for (const warning of config.startupWarnings) app.log.warn(warning)

  const allBaseTools = options.baseTools ?? getAllBaseTools()
  const baseTools = bashDisabled ? allBaseTools.filter((tool) => tool.name !== 'Bash') : allBaseTools
  await app.register(configPlugin, { config })
  await app.register(errorsPlugin)
  await app.register(websocketPlugin)
  await app.register(swaggerPlugin)
  await app.register(authPlugin)
  await app.register(storesPlugin, options.stores ? { stores: options.stores } : {})
  await app.register(blobStorePlugin)
  await app.register(sessionsPlugin, { operator: settings.permissions, sandbox: sandbox.sandbox })
  await app.register(mcpServersPlugin, {
    ...(settings.mcpServers ? { servers: settings.mcpServers as McpServersInput } : {}),
    ...(options.mcpTools ? { tools: options.mcpTools } : {}),
  })
  await app.register(toolPoolPlugin, {
    assemble: (permissionContext) =>
      assembleToolPool(permissionContext, app.mcp.tools(), { baseTools, simple: config.simple }),
    toDefinition: (tool, definitionOptions) => toApiToolDefinition(tool, definitionOptions),
    ...(options.extraTools ? { extraTools: options.extraTools } : {}),
  })
  await app.register(runManagerPlugin, {
    createExecutor: options.createExecutor ?? createRunExecutor,
    permissionGateFor: ({ prompter, timeoutMs }) => createPermissionGate({ prompter, timeoutMs: timeoutMs ?? 0 }),
    hooks: createHookRunner(settings.hooks, { logger: app.log }),
  })
  await app.register(metricsPlugin, {
    isKnownTool: (name) =>
      [baseTools, app.mcp.tools(), options.extraTools ?? []].some((tools) => findToolByName(tools, name) !== undefined),
  })
  await app.register(mcpEndpointPlugin)

  await app.register(healthRoutes)
  await app.register(metricsRoutes)
  await app.register(runsRoutes)
  await app.register(runControlRoutes)
  await app.register(runEventsRoutes)
  await app.register(streamRoutes)
  await app.register(sessionsRoutes)
  await app.register(toolsRoutes)
  await app.register(blobsRoutes)
  await app.register(mcpServersRoutes)
  await app.register(mcpRoutes)
  return app
}

export type App = Awaited<ReturnType<typeof buildApp>>

function stripAccessToken(url: string): string {
  return url.replace(/([?&]access_token=)[^&]*/g, '$1[redacted]')
}

/** An explicit `TOOLEXEC_SANDBOX=bwrap` that cannot work is a configuration error, not a crash. */
function sandboxOrConfigError(mode: Config['sandbox']) {
  try {
    return detectSandbox(mode)
  } catch (error) {
    throw new ConfigError('TOOLEXEC_SANDBOX', error instanceof Error ? error.message : String(error))
  }
}
