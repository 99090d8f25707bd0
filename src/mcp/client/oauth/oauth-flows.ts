import type { ServiceRecords } from '../../../secrets/service-records.js'
import type { ServerConnection } from '../mcp-server-connection.js'
import type { McpServerConfig } from '../mcp-settings-schema.js'
import type { SecretResolver } from '../resolve-server-secrets.js'
import { McpServerNotFoundError, OAuthCallbackError, OAuthNotInteractiveError } from './oauth-errors.js'
import { oauthRecordNames, takePendingAuthorization } from './oauth-records.js'
import { createServerOAuth, type ServerOAuth } from './server-oauth.js'

export const OAUTH_CALLBACK_PATH = '/v1/mcp/oauth/callback'

export type OAuthCallbackParams = {
  state: string | undefined
  code: string | undefined
  iss: string | undefined
  error: string | undefined
  error_description: string | undefined
}

export type OAuthFlowsOptions = {
  records: ServiceRecords | undefined
  resolveSecret: SecretResolver | undefined
  publicUrl: string | undefined
  connection(name: string): ServerConnection | undefined
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * The OAuth of every HTTP server with an `oauth` block: built with its connection, started by
 * an admin, finished by the browser's return on any instance (docs/adr/0423-authorization-state.md).
 */
export function createOAuthFlows(options: OAuthFlowsOptions) {
  const servers = new Map<string, ServerOAuth>()
  // A token written by another instance's callback (Redis) lets a server waiting for it connect here too.
  const stopListening = options.records?.onChange((name) => {
    for (const [server] of servers) {
      if (name !== oauthRecordNames(server).tokens) continue
      const connection = options.connection(server)
      if (connection?.state().status === 'needs_authorization') connection.retryIfFailed()
    }
  })

  return {
    /** The OAuth of one configured server, or why it can never work; undefined without `oauth`. */
    forServer(name: string, config: McpServerConfig): { oauth?: ServerOAuth; configError?: string } | undefined {
      if (config.type !== 'http' || config.oauth === undefined) return undefined
      const { records, resolveSecret } = options
      if (records === undefined || resolveSecret === undefined)
        return { configError: 'oauth needs the secret store for its tokens: set TOOLEXEC_SECRET_KEY' }
      const settings = config.oauth
      const redirectUrl =
        settings.redirect_uri ??
        (options.publicUrl === undefined ? undefined : new URL(OAUTH_CALLBACK_PATH, options.publicUrl).href)
      if (settings.grant === 'authorization_code' && redirectUrl === undefined)
        return {
          configError: `grant "authorization_code" needs TOOLEXEC_PUBLIC_URL (or oauth.redirect_uri): the browser comes back to ${OAUTH_CALLBACK_PATH}`,
        }
      const oauth = createServerOAuth({
        server: name,
        serverUrl: config.url,
        settings,
        records,
        resolveSecret,
        redirectUrl,
      })
      servers.set(name, oauth)
      return { oauth }
    },

    /** Starts an admin's authorization of `name`: the URL the admin opens. */
    async authorize(name: string): Promise<URL> {
      if (options.connection(name) === undefined) throw new McpServerNotFoundError(name)
      const oauth = servers.get(name)
      if (oauth?.settings.grant !== 'authorization_code')
        throw new OAuthNotInteractiveError(
          oauth === undefined
            ? `MCP server "${name}" has no oauth settings: there is nothing to authorize`
            : `MCP server "${name}" uses grant "${oauth.settings.grant}": it gets its tokens without a browser`,
        )
      return oauth.startAuthorization()
    },

    /** The browser came back: finishes the authorization its `state` names; returns the server's name. */
    async complete(params: OAuthCallbackParams): Promise<string> {
      if (options.records === undefined || params.state === undefined || params.state === '')
        throw new OAuthCallbackError('the authorization response has no state: start the authorization again')
      // Taken before anything else: a state is spent by its first use, good or bad.
      const pending = await takePendingAuthorization(options.records, params.state)
      if (pending === undefined)
        throw new OAuthCallbackError(
          'unknown or already used state: start the authorization again (POST /v1/mcp/servers/{name}/authorize)',
        )
      if (params.error !== undefined)
        throw new OAuthCallbackError(
          `the authorization server answered ${params.error}${params.error_description ? `: ${params.error_description}` : ''}`,
        )
      if (params.code === undefined || params.code === '')
        throw new OAuthCallbackError('the authorization response has no code')
      const oauth = servers.get(pending.server)
      if (oauth === undefined) throw new OAuthCallbackError(`MCP server "${pending.server}" is no longer configured`)
      try {
        await oauth.finishAuthorization(params.state, pending, params.code, params.iss)
      } catch (error) {
        throw new OAuthCallbackError(`MCP server "${pending.server}": ${messageOf(error)}`)
      }
      options.connection(pending.server)?.retryIfFailed()
      return pending.server
    },

    close(): void {
      stopListening?.()
      for (const oauth of servers.values()) oauth.close()
    },
  }
}

export type OAuthFlows = ReturnType<typeof createOAuthFlows>
