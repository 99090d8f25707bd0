import { AsyncLocalStorage } from 'node:async_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import {
  type AddClientAuthentication,
  auth,
  createPrivateKeyJwtAuth,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
} from '@modelcontextprotocol/client'
import type { SecretResolver } from '../resolve-server-secrets.js'
import { oauthClientMetadata } from './oauth-client-metadata.js'
import type { OAuthRecords, SavedTokens } from './oauth-records.js'
import type { OAuthSettings } from './oauth-settings-schema.js'

/**
 * Refresh this long before expiry, or half-way through a shorter token's life (ADR 0421): the
 * margin covers clock skew and authorization servers that round `exp` down to the second.
 */
const MAX_REFRESH_LEAD_MS = 60_000
/** How long one instance may hold the refresh lock before another may take it. */
const REFRESH_LOCK_TTL_MS = 15_000
const LOCK_POLL_MS = 50

const SECRET_NAME = /^\$\{secret:([^}]*)\}$/

/** Set while this process runs a refresh it already holds the lock for. */
const ownRefresh = new AsyncLocalStorage<true>()

type HeldLock = {
  release: () => Promise<void>
  released: Promise<void>
  markReleased: () => void
  timer: NodeJS.Timeout
}

export type VaultOAuthProviderOptions = {
  server: string
  serverUrl: string
  settings: OAuthSettings
  records: OAuthRecords
  resolveSecret: SecretResolver
  /** Where the authorization server sends the browser back (authorization_code only). */
  redirectUrl?: string | undefined
  /** Set for an admin's authorization: its `state`, and the verifier once the SDK made one. */
  flow?: { state: string; verifier?: string; authorizationUrl?: URL } | undefined
  /** Told when a connection attempt found that only an admin's authorization can help. */
  onAuthorizationNeeded?: ((authorizationUrl: URL) => void) | undefined
  now?: () => number
}

function refreshDue(tokens: SavedTokens, now: number): boolean {
  if (tokens.expires_at === undefined) return false
  const lifetime = tokens.expires_at - (tokens.saved_at ?? tokens.expires_at - MAX_REFRESH_LEAD_MS * 2)
  const lead = Math.min(MAX_REFRESH_LEAD_MS, lifetime / 2)
  return tokens.expires_at - now <= lead
}

/**
 * The SDK's OAuth client for one MCP server, with the secret store as its memory: tokens, a
 * dynamically registered client and discovery results are sealed records every instance shares
 * (docs/adr/0420-oauth-tokens-in-the-vault.md). The SDK does discovery, token requests, refresh,
 * step-up and the RFC 9207 `iss` check; this class only stores, and refreshes a token before it
 * lapses, one instance at a time (docs/adr/0421-one-refresh-at-a-time.md).
 */
export class VaultOAuthProvider implements OAuthClientProvider {
  private cached: SavedTokens | undefined
  private loaded = false
  private held: HeldLock | undefined
  private refreshing: Promise<void> | undefined
  private readonly now: () => number
  private readonly stopListening: () => void
  /**
   * A URL client id (Client ID Metadata Documents, MCP 2025-11-25): used, instead of dynamic
   * registration, where the authorization server says it supports them (docs/adr/0428).
   */
  readonly clientMetadataUrl?: string

  addClientAuthentication?: AddClientAuthentication

  constructor(private readonly options: VaultOAuthProviderOptions) {
    if (options.settings.client_metadata_url !== undefined)
      this.clientMetadataUrl = options.settings.client_metadata_url
    this.now = options.now ?? Date.now
    if (options.settings.grant === 'private_key_jwt')
      this.addClientAuthentication = (...args) => this.signAssertion(...args)
    // Another instance's refresh (Redis) or the callback's exchange: read again at the next request.
    this.stopListening = options.records.onChange((name) => {
      if (name === options.records.names.tokens) this.loaded = false
    })
  }

  close(): void {
    this.stopListening()
  }

  get redirectUrl(): string | undefined {
    return this.options.settings.grant === 'authorization_code' ? this.options.redirectUrl : undefined
  }

  get clientMetadata(): OAuthClientMetadata {
    return oauthClientMetadata(this.options.settings, this.redirectUrl)
  }

  private async secret(reference: string | undefined): Promise<string | undefined> {
    const name = reference === undefined ? undefined : SECRET_NAME.exec(reference)?.[1]
    return name === undefined ? undefined : this.options.resolveSecret(name)
  }

  async clientInformation(): Promise<StoredOAuthClientInformation | undefined> {
    const { settings, records } = this.options
    const saved = await records.client()
    // A registration we made is ours to keep; a pre-registered client is the settings' (its secret
    // read from the store each time), bound to `oauth.issuer` or else to the first authorization
    // server it was sent to (the SDK's issuer stamp, kept in the same record: ADR 0422).
    if (settings.client_id === undefined) return saved
    const secret = settings.grant === 'private_key_jwt' ? undefined : await this.secret(settings.client_secret)
    const issuer = settings.issuer ?? (saved?.client_id === settings.client_id ? saved.issuer : undefined)
    return {
      client_id: settings.client_id,
      ...(secret === undefined ? {} : { client_secret: secret }),
      ...(issuer === undefined ? {} : { issuer }),
    }
  }

  async saveClientInformation(client: StoredOAuthClientInformation): Promise<void> {
    const { settings, records } = this.options
    if (settings.client_id === undefined) return records.saveClient(client)
    // A pre-registered client is pinned once, to the first authorization server it was sent to;
    // a registration the SDK made elsewhere (its issuer moved) is used but never re-pins it.
    const saved = await records.client()
    if (client.client_id !== settings.client_id || client.issuer === undefined) return
    if (saved?.client_id === settings.client_id && saved.issuer !== undefined) return
    await records.saveClient({ client_id: settings.client_id, issuer: client.issuer })
  }

  /** private_key_jwt: a fresh signed assertion per token request (RFC 7523), the key read from the store each time. */
  private async signAssertion(...[headers, params, url, metadata]: Parameters<AddClientAuthentication>): Promise<void> {
    const { settings } = this.options
    const clientId = settings.client_id ?? ''
    const privateKey = (await this.secret(settings.private_key)) ?? ''
    const sign = createPrivateKeyJwtAuth({
      issuer: clientId,
      subject: clientId,
      privateKey,
      alg: settings.algorithm ?? 'RS256',
      // The audience is the authorization server's issuer where its metadata names one.
      ...(metadata?.issuer ? { audience: metadata.issuer } : {}),
    })
    await sign(headers, params, url, metadata)
  }

  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    if (this.options.settings.grant === 'authorization_code') return undefined
    const params = new URLSearchParams({ grant_type: 'client_credentials' })
    if (scope) params.set('scope', scope)
    return params
  }

  private async stored(): Promise<SavedTokens | undefined> {
    if (!this.loaded) {
      this.cached = await this.options.records.tokens()
      this.loaded = true
    }
    return this.cached
  }

  /**
   * The per-request read (no `ctx`) refreshes a token about to lapse first; the read inside
   * `auth()` (with `ctx`, just before a refresh) waits for the shared refresh lock, so two
   * instances never spend one rotating refresh token (ADR 0421).
   */
  async tokens(ctx?: { issuer: string }): Promise<StoredOAuthTokens | undefined> {
    if (ctx !== undefined) {
      if (ownRefresh.getStore() === undefined) await this.lockForRefresh()
      this.loaded = false
      return this.stored()
    }
    const tokens = await this.stored()
    if (tokens !== undefined && refreshDue(tokens, this.now())) {
      this.refreshing ??= this.refresh().finally(() => {
        this.refreshing = undefined
      })
      await this.refreshing
      return this.stored()
    }
    return tokens
  }

  private async refresh(): Promise<void> {
    try {
      await this.lockForRefresh()
      // Another instance may have refreshed while this one waited for the lock.
      this.loaded = false
      const current = await this.stored()
      if (current !== undefined && !refreshDue(current, this.now())) return
      await ownRefresh.run(true, () => auth(this, { serverUrl: this.options.serverUrl }))
    } catch {
      // The request goes out with the old token; a 401 then runs the SDK's own recovery.
    } finally {
      await this.unlock()
    }
  }

  /** One refresh at a time: first in this process, then across the instances sharing the store. */
  private async lockForRefresh(): Promise<void> {
    while (this.held !== undefined) await this.held.released
    const deadline = this.now() + REFRESH_LOCK_TTL_MS
    let release = await this.options.records.tryLock(REFRESH_LOCK_TTL_MS)
    while (release === undefined && this.now() < deadline) {
      await sleep(LOCK_POLL_MS)
      release = await this.options.records.tryLock(REFRESH_LOCK_TTL_MS)
    }
    // Past the deadline the holder is gone (its lock expired too): go ahead without one.
    let markReleased = () => {}
    const released = new Promise<void>((resolve) => {
      markReleased = resolve
    })
    // A flow that failed between lock and save must not hold this process's waiters forever.
    const timer = setTimeout(() => void this.unlock(), REFRESH_LOCK_TTL_MS)
    timer.unref()
    this.held = { release: release ?? (async () => {}), released, markReleased, timer }
  }

  private async unlock(): Promise<void> {
    const held = this.held
    if (held === undefined) return
    this.held = undefined
    clearTimeout(held.timer)
    await held.release().catch(() => {})
    held.markReleased()
  }

  async saveTokens(tokens: StoredOAuthTokens): Promise<void> {
    const at = this.now()
    const saved: SavedTokens = {
      ...tokens,
      saved_at: at,
      ...(tokens.expires_in === undefined ? {} : { expires_at: at + tokens.expires_in * 1000 }),
    }
    await this.options.records.saveTokens(saved)
    this.cached = saved
    this.loaded = true
    await this.unlock()
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    await this.unlock()
    if (this.options.flow) this.options.flow.authorizationUrl = authorizationUrl
    else this.options.onAuthorizationNeeded?.(authorizationUrl)
  }

  state(): string {
    return this.options.flow?.state ?? ''
  }

  saveCodeVerifier(verifier: string): void {
    // Only an admin's authorization keeps its verifier (in its pending record); a connection
    // attempt that would need one has nobody to send to the browser.
    if (this.options.flow) this.options.flow.verifier = verifier
  }

  codeVerifier(): string {
    const verifier = this.options.flow?.verifier
    if (verifier === undefined) throw new Error('no authorization is pending for this server')
    return verifier
  }

  discoveryState(): Promise<OAuthDiscoveryState | undefined> {
    return this.options.records.discovery()
  }

  async saveDiscoveryState(state: OAuthDiscoveryState): Promise<void> {
    await this.options.records.saveDiscovery(state)
  }

  async invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): Promise<void> {
    const { records } = this.options
    if (scope === 'all' || scope === 'tokens') {
      await records.remove(records.names.tokens)
      this.cached = undefined
      this.loaded = true
      // The SDK starts over next, reading tokens again: the lock this flow took must not hold it.
      await this.unlock()
    }
    if ((scope === 'all' || scope === 'client') && this.options.settings.client_id === undefined)
      await records.remove(records.names.client)
    if (scope === 'all' || scope === 'discovery') await records.remove(records.names.discovery)
  }
}
