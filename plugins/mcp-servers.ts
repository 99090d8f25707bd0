import fp from 'fastify-plugin'
import { createMcpManager, type McpManager } from '../src/mcp/client/mcp-manager.js'
import type { McpServerState } from '../src/mcp/client/mcp-server-state.js'
import type { McpServersInput } from '../src/mcp/client/mcp-settings-schema.js'
import type { Tools } from '../src/tool/tool.js'

declare module 'fastify' {
  interface FastifyInstance {
    mcp: {
      /** The MCP tools in the pool right now (they come and go with their servers). */
      tools(): Tools
      states(): McpServerState[]
      onToolsChanged(listener: () => void): () => void
    }
  }
}

export type McpServersPluginOptions = {
  /** The settings file's `mcpServers`. */
  servers?: McpServersInput
  /** Fixed MCP tools instead of servers (tests and embedders). */
  tools?: Tools
}

/**
 * The MCP servers of the settings file, connected in the background (the service does not wait
 * for them to start serving; their tools join the pool as they connect).
 */
export const mcpServersPlugin = fp<McpServersPluginOptions>(
  async (app, options) => {
    const hasServers = options.servers !== undefined && Object.keys(options.servers).length > 0
    const manager: McpManager | undefined = hasServers
      ? createMcpManager({
          servers: options.servers!,
          clientInfo: { name: 'toolexec', version: '0.1.0' },
          logger: app.log,
        })
      : undefined
    const fixed = options.tools ?? []
    app.decorate('mcp', {
      tools: () => (manager ? [...fixed, ...manager.tools()] : fixed),
      states: () => manager?.states() ?? [],
      onToolsChanged: (listener: () => void) => manager?.onToolsChanged(() => listener()) ?? (() => {}),
    })
    if (manager) {
      void manager
        .ready()
        .then(() => app.log.info({ servers: manager.states() }, 'MCP servers: first connections settled'))
      app.addHook('onClose', async () => manager.close())
    }
  },
  { name: 'mcp' },
)
