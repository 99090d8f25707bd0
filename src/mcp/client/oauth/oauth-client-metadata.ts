import type { OAuthClientMetadata } from '@modelcontextprotocol/client'
import type { OAuthSettings } from './oauth-settings-schema.js'

/**
 * What toolexec tells an authorization server about itself when it registers (RFC 7591), from the
 * server's `oauth` block: the grant's types, how it authenticates at the token endpoint, and the
 * callback for the code flow (docs/adr/0422-oauth-settings.md).
 */
export function oauthClientMetadata(settings: OAuthSettings, redirectUrl: string | undefined): OAuthClientMetadata {
  const method =
    settings.grant === 'private_key_jwt'
      ? 'private_key_jwt'
      : settings.client_secret === undefined
        ? 'none'
        : 'client_secret_basic'
  return {
    client_name: settings.client_name ?? 'toolexec',
    redirect_uris: redirectUrl === undefined ? [] : [redirectUrl],
    grant_types:
      settings.grant === 'authorization_code' ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
    response_types: settings.grant === 'authorization_code' ? ['code'] : [],
    token_endpoint_auth_method: method,
    ...(settings.scope === undefined ? {} : { scope: settings.scope }),
  }
}
