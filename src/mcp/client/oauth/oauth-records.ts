import type { OAuthDiscoveryState, StoredOAuthClientInformation, StoredOAuthTokens } from '@modelcontextprotocol/client'
import type { ServiceRecords } from '../../../secrets/service-records.js'

/** Tokens as stored: the SDK's, plus when they were saved and when they lapse (ms since the epoch). */
export type SavedTokens = StoredOAuthTokens & { saved_at?: number; expires_at?: number }

/** An authorization an admin started and has not finished: bound to its `state` (ADR 0423). */
export type PendingAuthorization = { server: string; verifier: string; started_at: number }

/**
 * Where one server's OAuth state lives in the secret store, sealed like a secret and out of the
 * API's reach (docs/adr/0420-oauth-tokens-in-the-vault.md): `oauth:<server>:tokens`, `:client`
 * (a dynamically registered client), `:discovery`, and `oauth-flow:<state>` per pending authorization.
 */
export function oauthRecordNames(server: string) {
  const base = `oauth:${encodeURIComponent(server)}`
  return {
    tokens: `${base}:tokens`,
    client: `${base}:client`,
    discovery: `${base}:discovery`,
    refreshLock: `${base}:refresh`,
  }
}

const pendingRecordName = (state: string) => `oauth-flow:${state}`

async function readJson<T>(records: ServiceRecords, name: string): Promise<T | undefined> {
  const text = await records.read(name)
  if (text === undefined) return undefined
  try {
    return JSON.parse(text) as T
  } catch {
    return undefined
  }
}

/** Typed access to one server's records. */
export function createOAuthRecords(records: ServiceRecords, server: string) {
  const names = oauthRecordNames(server)
  return {
    names,
    tokens: () => readJson<SavedTokens>(records, names.tokens),
    saveTokens: (tokens: SavedTokens) => records.write(names.tokens, JSON.stringify(tokens)),
    client: () => readJson<StoredOAuthClientInformation>(records, names.client),
    saveClient: (client: StoredOAuthClientInformation) => records.write(names.client, JSON.stringify(client)),
    discovery: () => readJson<OAuthDiscoveryState>(records, names.discovery),
    saveDiscovery: (state: OAuthDiscoveryState) => records.write(names.discovery, JSON.stringify(state)),
    remove: (name: string) => records.remove(name),
    savePending: (state: string, pending: PendingAuthorization) =>
      records.write(pendingRecordName(state), JSON.stringify(pending)),
    tryLock: (ttlMs: number) => records.tryLock(names.refreshLock, ttlMs),
    onChange: (listener: (name: string) => void) => records.onChange(listener),
  }
}

export type OAuthRecords = ReturnType<typeof createOAuthRecords>

/** The pending authorization `state` names, taken: a state is good for one callback only (ADR 0423). */
export async function takePendingAuthorization(
  records: ServiceRecords,
  state: string,
): Promise<PendingAuthorization | undefined> {
  const pending = await readJson<PendingAuthorization>(records, pendingRecordName(state))
  if (pending !== undefined) await records.remove(pendingRecordName(state))
  return pending
}
