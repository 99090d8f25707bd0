import fp from 'fastify-plugin'
import { SERVICE_INFO } from '../src/config/service-info.js'
import { createMcpManager, type McpManager } from '../src/mcp/client/mcp-manager.js'
import type { McpServerState } from '../src/mcp/client/mcp-server-state.js'
import type { McpServersInput } from '../src/mcp/client/mcp-settings-schema.js'
import { McpServerNotFoundError, OAuthCallbackError } from '../src/mcp/client/oauth/oauth-errors.js'
import type { OAuthCallbackParams } from '../src/mcp/client/oauth/oauth-flows.js'
import { rebuiltOnChange } from '../src/registry/rebuilt-on-change.js'
import type { Tools } from '../src/tool/tool.js'

declare module 'fastify' {
  interface FastifyInstance {
    mcpServers: {
      /** The MCP tools in the pool right now (they come and go with their servers). */
      tools(): Tools
      states(): McpServerState[]
      onToolsChanged(listener: () => void): () => void
      /** Starts the OAuth authorization of a server an admin completes in a browser (docs/mcp.md#oauth). */
      authorize(name: string): Promise<URL>
      /** The browser's return: finishes the authorization its `state` names, returns the server's name. */
      completeAuthorization(params: OAuthCallbackParams): Promise<string>
    }
  }
}

export type McpServersPluginOptions = {
  /** Fixed MCP tools, added to those of the settings file's servers (tests and embedders). */
  tools?: Tools | undefined
}

/**
 * The MCP servers of the settings file, connected in the background (the service does not wait
 * for them to start serving; their tools join the pool as they connect).
 */
export const mcpServersPlugin = fp<McpServersPluginOptions>(
  async (app, options) => {
    const servers = app.settings.mcpServers as McpServersInput | undefined
    const manager: McpManager | undefined =
      servers !== undefined && Object.keys(servers).length > 0
        ? createMcpManager({
            servers,
            clientInfo: SERVICE_INFO,
            logger: app.log,
            resolveSecret: (name) => app.secrets.resolve(name),
            ...(app.secrets.configured ? { oauthRecords: app.secrets.internal } : {}),
            publicUrl: app.config.publicUrl,
          })
        : undefined
    const fixed = options.tools ?? []
    // One array per change of the manager's list: the tool pool keeps pools while it is the same.
    const tools: () => Tools = manager
      ? rebuiltOnChange(
          () => manager.tools(),
          (current) => [...fixed, ...current],
        )
      : () => fixed
    app.decorate('mcpServers', {
      tools,
      states: () => manager?.states() ?? [],
      onToolsChanged: (listener: () => void) => manager?.onToolsChanged(() => listener()) ?? (() => {}),
      authorize: async (name: string) => {
        if (manager === undefined) throw new McpServerNotFoundError(name)
        return manager.oauth.authorize(name)
      },
      completeAuthorization: async (params: OAuthCallbackParams) => {
        if (manager === undefined) throw new OAuthCallbackError('no MCP server is configured')
        return manager.oauth.complete(params)
      },
    })
    if (manager) {
      void manager
        .ready()
        .then(() => app.log.info({ servers: manager.states() }, 'MCP servers: first connections settled'))
      // A server that failed for want of a secret connects once an admin writes it here.
      const unsubscribe = app.secrets.onWrite(() => manager.retryFailed())
      app.addHook('onClose', async () => {
        unsubscribe()
        await manager.close()
      })
    }
  },
  { name: 'mcp-servers', dependencies: ['settings', 'secrets'] },
)
