/** `POST /v1/mcp/servers/{name}/authorize` named no configured server. */
export class McpServerNotFoundError extends Error {
  override name = 'McpServerNotFoundError'
  constructor(readonly server: string) {
    super(`No MCP server is named "${server}" in the settings file`)
  }
}

/** The server has no browser step: no `oauth`, or a grant that needs none. */
export class OAuthNotInteractiveError extends Error {
  override name = 'OAuthNotInteractiveError'
}

/** The authorization response cannot be used: unknown or spent `state`, wrong `iss`, refused code. */
export class OAuthCallbackError extends Error {
  override name = 'OAuthCallbackError'
}
