import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import { Gauge } from 'prom-client'
import { SERVICE_INFO } from '../src/config/service-info.js'
import { createMcpEndpoint } from '../src/mcp/endpoint/create-mcp-endpoint.js'

declare module 'fastify' {
  interface FastifyInstance {
    mcpEndpoint: ReturnType<typeof createMcpEndpoint>
  }
}

/**
 * Asks over MCP (docs/adr/0355): the state's key comes from TOOLEXEC_SECRET_KEY. Without it a key
 * per process serves one instance; instances sharing Redis could not verify each other's state,
 * so there asks are denied as before, and the log says what to set.
 */
function inputRequestsOf(app: FastifyInstance) {
  const { config } = app
  const secretKey = config.secrets.key
  if (!secretKey && app.coordination) {
    app.log.warn(
      "MCP clients cannot answer permission asks: instances sharing Redis need TOOLEXEC_SECRET_KEY to verify each other's input request state",
    )
    return undefined
  }
  return { secretKey, ttlMs: config.permissionTimeoutMs }
}

/** toolexec as an MCP server (`/mcp`, ADR 0056): every tool call is a one-block run. */
export const mcpEndpointPlugin = fp(
  async (app) => {
    const endpoint = createMcpEndpoint({
      runManager: app.runManager,
      sessions: app.sessions,
      mcpSessions: app.stores.mcpSessions,
      coordination: app.coordination,
      toolPool: app.toolPool,
      inputLimits: app.config,
      serverInfo: SERVICE_INFO,
      idleTtlMs: app.config.sessionIdleTtlMs,
      limits: app.config.mcpSessionLimits,
      onError: (error) => app.log.debug({ err: error }, 'an /mcp request was refused'),
      inputRequests: inputRequestsOf(app),
    })
    app.decorate('mcpEndpoint', endpoint)
    new Gauge({
      name: 'toolexec_mcp_sessions_open',
      help: 'MCP sessions open on /mcp (older revisions; on Redis, those of every instance)',
      registers: [app.metrics.registry],
      async collect() {
        this.set(await endpoint.openSessions())
      },
    })
    const stop = app.mcpServers.onToolsChanged(() => endpoint.toolsChanged())
    // preClose, after the run drain: open notification streams would keep the HTTP server from closing.
    app.addHook('preClose', async () => {
      stop()
      await endpoint.close()
    })
  },
  {
    name: 'mcp-endpoint',
    dependencies: ['config', 'stores', 'metrics', 'mcp-servers', 'run-manager', 'sessions', 'tool-pool'],
  },
)
