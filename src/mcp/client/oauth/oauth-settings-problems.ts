/**
 * Why the `oauth` blocks of the settings can never work in this deployment, one line each (empty
 * when they can): tokens need the secret store, and an authorization-code redirect needs an
 * address browsers reach (docs/adr/0422-oauth-settings.md). Refused at load, like other settings
 * that cannot match (docs/adr/0287-rules-that-can-never-match-are-refused.md).
 */
export function oauthSettingsProblems(
  mcpServers: unknown,
  deployment: { keyConfigured: boolean; publicUrl: string | undefined },
): string[] {
  if (mcpServers === null || typeof mcpServers !== 'object') return []
  const problems: string[] = []
  for (const [name, server] of Object.entries(mcpServers as { [name: string]: unknown })) {
    const oauth = (server as { oauth?: { grant?: unknown; redirect_uri?: unknown } } | null)?.oauth
    if (oauth === undefined || oauth === null) continue
    if (!deployment.keyConfigured)
      problems.push(
        `mcpServers.${name}.oauth: OAuth tokens are kept encrypted in the secret store: set TOOLEXEC_SECRET_KEY (\`openssl rand -base64 32\`)`,
      )
    if (oauth.grant === 'authorization_code' && oauth.redirect_uri === undefined && deployment.publicUrl === undefined)
      problems.push(
        `mcpServers.${name}.oauth: grant "authorization_code" sends the browser back to toolexec: set TOOLEXEC_PUBLIC_URL (or oauth.redirect_uri)`,
      )
  }
  return problems
}
