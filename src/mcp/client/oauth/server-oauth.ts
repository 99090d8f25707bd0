import { randomBytes } from 'node:crypto'
import {
  AuthorizationServerMismatchError,
  auth,
  IssuerMismatchError,
  OAuthError,
  SdkHttpError,
  UnauthorizedError,
} from '@modelcontextprotocol/client'
import type { ServiceRecords } from '../../../secrets/service-records.js'
import type { SecretResolver } from '../resolve-server-secrets.js'
import { createOAuthRecords, type PendingAuthorization } from './oauth-records.js'
import type { OAuthSettings } from './oauth-settings-schema.js'
import { VaultOAuthProvider } from './vault-oauth-provider.js'

/** How long an admin has between starting an authorization and the browser coming back (ADR 0423). */
const AUTHORIZATION_WINDOW_MS = 10 * 60_000

export type OAuthStatus = { status: 'needs_authorization' | 'unauthorized'; message: string }

export type ServerOAuthOptions = {
  server: string
  serverUrl: string
  settings: OAuthSettings
  records: ServiceRecords
  resolveSecret: SecretResolver
  redirectUrl?: string | undefined
  now?: () => number
}

function chain(error: unknown): unknown[] {
  const out: unknown[] = []
  for (let current = error; current !== undefined && current !== null && out.length < 5; ) {
    out.push(current)
    current = (current as { cause?: unknown }).cause
  }
  return out
}

/**
 * One HTTP server's OAuth: the provider its transport authenticates with, the admin's
 * authorization-code flow (start, callback), and what an OAuth failure means for its state.
 */
export function createServerOAuth(options: ServerOAuthOptions) {
  const { server, serverUrl, settings } = options
  const records = createOAuthRecords(options.records, server)
  const now = options.now ?? Date.now
  let authorizationNeeded = false
  let neededScope: string | undefined

  const base = {
    server,
    serverUrl,
    settings,
    records,
    resolveSecret: options.resolveSecret,
    redirectUrl: options.redirectUrl,
    now,
  }
  const provider = new VaultOAuthProvider({
    ...base,
    // The URL the SDK built is never shown (its state has no pending record); its scope is what a step-up asked for.
    onAuthorizationNeeded: (url) => {
      authorizationNeeded = true
      neededScope = url.searchParams.get('scope') ?? undefined
    },
  })

  const authorizeHint = `an admin calls POST /v1/mcp/servers/${encodeURIComponent(server)}/authorize and opens the authorization_url it returns`

  return {
    provider,
    settings,

    /** Called before each connection attempt: the verdict of the last one is forgotten. */
    beginAttempt(): void {
      authorizationNeeded = false
    },

    /** What a failed attempt means when OAuth is why; undefined for every other failure. */
    classify(error: unknown): OAuthStatus | undefined {
      if (authorizationNeeded)
        return {
          status: 'needs_authorization',
          message: `not authorized yet${neededScope ? ` (scope "${neededScope}" needed)` : ''}: ${authorizeHint}`,
        }
      for (const link of chain(error)) {
        if (link instanceof OAuthError)
          return {
            status: 'unauthorized',
            message: `the authorization server refused (${link.code}): ${link.message}; check client_id and the secret oauth.${settings.grant === 'private_key_jwt' ? 'private_key' : 'client_secret'} refers to`,
          }
        if (link instanceof AuthorizationServerMismatchError || link instanceof IssuerMismatchError)
          return {
            status: 'unauthorized',
            message: `authorization server mismatch: ${link.message}; check oauth.issuer`,
          }
        if (link instanceof SdkHttpError && (link.status === 401 || link.status === 403))
          return {
            status: 'unauthorized',
            message: `the server refused the access token (HTTP ${link.status}) even after a new one was obtained: check the client's grants and scope (oauth.scope)`,
          }
        if (link instanceof UnauthorizedError)
          return { status: 'unauthorized', message: `the server refused the access token: ${link.message}` }
      }
      return undefined
    },

    /** Starts an admin's authorization: the URL to open, its `state` bound to a pending record (ADR 0423). */
    async startAuthorization(): Promise<URL> {
      if (settings.grant !== 'authorization_code')
        throw new TypeError(
          `MCP server "${server}" uses grant "${settings.grant}": there is nothing to authorize in a browser`,
        )
      const state = randomBytes(32).toString('base64url')
      const flow: { state: string; verifier?: string; authorizationUrl?: URL } = { state }
      const interactive = new VaultOAuthProvider({ ...base, flow })
      try {
        // Discovered afresh: the resource may have moved to another authorization server (SEP-2352);
        // the metadata URL a 401 challenge named is kept, as a server may publish it nowhere else.
        const metadataUrl = (await records.discovery())?.resourceMetadataUrl
        await interactive.invalidateCredentials('discovery')
        const scope = neededScope ?? settings.scope
        await auth(interactive, {
          serverUrl,
          forceReauthorization: true,
          ...(scope ? { scope } : {}),
          ...(metadataUrl ? { resourceMetadataUrl: new URL(metadataUrl) } : {}),
        })
      } finally {
        interactive.close()
      }
      if (flow.authorizationUrl === undefined || flow.verifier === undefined)
        throw new Error(`the authorization server of MCP server "${server}" issued a token without a browser step`)
      await records.savePending(state, { server, verifier: flow.verifier, started_at: now() })
      return flow.authorizationUrl
    },

    /**
     * The browser came back: `iss` is checked against the authorization server's metadata
     * (RFC 9207, by the SDK), the code exchanged with the pending verifier, the tokens stored.
     */
    async finishAuthorization(state: string, pending: PendingAuthorization, code: string, iss: string | undefined) {
      if (now() - pending.started_at > AUTHORIZATION_WINDOW_MS)
        throw new Error('this authorization expired: start it again')
      const interactive = new VaultOAuthProvider({ ...base, flow: { state, verifier: pending.verifier } })
      try {
        await auth(interactive, { serverUrl, authorizationCode: code, ...(iss === undefined ? {} : { iss }) })
      } finally {
        interactive.close()
      }
      authorizationNeeded = false
      neededScope = undefined
    },

    close(): void {
      provider.close()
    },
  }
}

export type ServerOAuth = ReturnType<typeof createServerOAuth>
