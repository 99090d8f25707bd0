import { ApiError } from '../errors/api-error.js'
import { type ApiKey, keyDigest } from './api-key.js'
import type { Caller } from './capability.js'
import { DEFAULT_TENANT } from './default-tenant.js'
import { isLoopbackHost } from './is-loopback-host.js'

export type Credentials = {
  authorization: string | undefined
  /** `?access_token=`: browsers cannot set headers on WebSocket or EventSource requests. */
  accessToken: unknown
  remoteAddress: string | undefined
}

/** With auth off, the loopback caller is the operator: every right, named as such. */
const LOOPBACK_CALLER: Caller = Object.freeze({ tenant: DEFAULT_TENANT, keyName: 'loopback', role: 'admin' })

/**
 * Maps the credentials of one request to its caller (tenant, key name, role), or throws the
 * 401/403 to send. Keys are looked up by their hash, so lookup time says nothing about how much
 * of a key matched, and a keys file may hold only hashes.
 */
export function createAuthenticator(apiKeys: readonly ApiKey[]) {
  const callers = new Map<string, Caller>(
    apiKeys.map(({ tenant, name, role, digest }) => [digest, Object.freeze({ tenant, keyName: name, role })]),
  )

  return function authenticate(credentials: Credentials): Caller {
    if (callers.size === 0) {
      if (credentials.remoteAddress !== undefined && isLoopbackHost(credentials.remoteAddress)) return LOOPBACK_CALLER
      throw new ApiError('loopback_only', 'No API keys are configured, so only loopback clients are accepted')
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(credentials.authorization ?? '')?.[1]
    const key = bearer ?? (typeof credentials.accessToken === 'string' ? credentials.accessToken : undefined)
    const caller = key === undefined ? undefined : callers.get(keyDigest(key))
    if (caller === undefined)
      throw new ApiError('unauthorized', 'Send `Authorization: Bearer <API key>` with a known key')
    return caller
  }
}
