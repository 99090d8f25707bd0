import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { ApiError } from '../../src/errors/api-error.js'
import {
  McpServerNotFoundError,
  OAuthCallbackError,
  OAuthNotInteractiveError,
} from '../../src/mcp/client/oauth/oauth-errors.js'
import { OAUTH_CALLBACK_PATH } from '../../src/mcp/client/oauth/oauth-flows.js'
import { jsonResponse, problemResponses } from '../responses.js'

/** The domain's refusals as the API's problem codes. */
function asApiError(error: unknown): unknown {
  if (error instanceof McpServerNotFoundError) return new ApiError('mcp_server_not_found', error.message)
  if (error instanceof OAuthNotInteractiveError) return new ApiError('oauth_not_interactive', error.message)
  if (error instanceof OAuthCallbackError) return new ApiError('oauth_callback_invalid', error.message)
  return error
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`)

/**
 * The OAuth authorization-code flow of remote MCP servers (docs/mcp.md#oauth): an admin starts
 * it and opens the URL; the authorization server sends the browser back to the callback, which
 * the `state` authenticates (docs/adr/0423-authorization-state.md).
 */
export const mcpOAuthRoutes: FastifyPluginAsyncZod = async (app) => {
  const { adminTenants } = app.config.secrets

  app.post('/v1/mcp/servers/:name/authorize', {
    config: { capability: 'admin' },
    schema: {
      tags: ['tools'],
      operationId: 'authorizeMcpServer',
      summary: "Start an MCP server's OAuth authorization; open the returned URL in a browser",
      description:
        'For a server with `oauth.grant: "authorization_code"`. The URL is good for one use within 10 minutes; the authorization server then sends the browser to `/v1/mcp/oauth/callback`, which stores the tokens (encrypted, shared by every instance) and connects the server.',
      params: z.object({ name: z.string().describe('The server name in the settings file') }),
      response: {
        200: jsonResponse(
          'The URL to open',
          z.object({ authorization_url: z.string().describe('The authorization server page to open in a browser') }),
        ),
        ...problemResponses(401, 403, 404, 409),
      },
    },
    handler: async (request) => {
      // Like the secrets: authorizing a server gives the whole deployment its credentials.
      if (adminTenants !== 'all' && !adminTenants.includes(request.tenant))
        throw new ApiError(
          'role_forbidden',
          `The key "${request.keyName}" belongs to tenant "${request.tenant}": only admin keys of the tenants in TOOLEXEC_SECRETS_ADMIN_TENANTS authorize MCP servers`,
        )
      try {
        const url = await app.mcpServers.authorize(request.params.name)
        request.log.info({ server: request.params.name, key_name: request.keyName }, 'MCP server authorization started')
        return { authorization_url: url.href }
      } catch (error) {
        throw asApiError(error)
      }
    },
  })

  app.get(OAUTH_CALLBACK_PATH, {
    schema: {
      tags: ['tools'],
      operationId: 'mcpOAuthCallback',
      summary: 'Where the authorization server sends the browser back (not called by clients)',
      querystring: z.object({
        code: z.string().optional(),
        state: z.string().optional(),
        iss: z.string().optional(),
        error: z.string().optional(),
        error_description: z.string().optional(),
      }),
      response: {
        200: { description: 'Authorized: a page saying so', content: { 'text/html': { schema: z.string() } } },
        ...problemResponses(400),
      },
    },
    handler: async (request, reply) => {
      const { code, state, iss, error, error_description } = request.query
      let server: string
      try {
        server = await app.mcpServers.completeAuthorization({ code, state, iss, error, error_description })
      } catch (failure) {
        request.log.warn({ error: String(failure) }, 'MCP server authorization refused')
        throw asApiError(failure)
      }
      request.log.info({ server }, 'MCP server authorized')
      return reply
        .type('text/html; charset=utf-8')
        .send(
          `<!doctype html><title>toolexec</title><p>MCP server “${escapeHtml(server)}” is authorized. You can close this window.</p>`,
        )
    },
  })
}
