import fp from 'fastify-plugin'
import { Gauge } from 'prom-client'
import { SERVICE_INFO } from '../src/config/service-info.js'
import { createMcpEndpoint } from '../src/mcp/endpoint/create-mcp-endpoint.js'

declare module 'fastify' {
  interface FastifyInstance {
    mcpEndpoint: ReturnType<typeof createMcpEndpoint>
  }
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
