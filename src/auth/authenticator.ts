import { createHash } from 'node:crypto'
import { ApiError } from '../errors/api-error.js'
import type { ApiKey } from './api-key.js'
import { DEFAULT_TENANT } from './default-tenant.js'
import { isLoopbackHost } from './is-loopback-host.js'

export type Credentials = {
  authorization: string | undefined
  /** `?access_token=`: browsers cannot set headers on WebSocket or EventSource requests. */
  accessToken: unknown
  remoteAddress: string | undefined
}

// Keys are looked up by their hash, so lookup time says nothing about how much of a key matched.
const digest = (key: string) => createHash('sha256').update(key).digest('hex')

/** Maps the credentials of one request to its tenant, or throws the 401/403 to send. */
export function createAuthenticator(apiKeys: readonly ApiKey[]) {
  const tenants = new Map(apiKeys.map(({ tenant, key }) => [digest(key), tenant]))

  return function authenticate(credentials: Credentials): string {
    if (tenants.size === 0) {
      if (credentials.remoteAddress !== undefined && isLoopbackHost(credentials.remoteAddress)) return DEFAULT_TENANT
      throw new ApiError('loopback_only', 'No API keys are configured, so only loopback clients are accepted')
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(credentials.authorization ?? '')?.[1]
    const key = bearer ?? (typeof credentials.accessToken === 'string' ? credentials.accessToken : undefined)
    const tenant = key === undefined ? undefined : tenants.get(digest(key))
    if (tenant === undefined)
      throw new ApiError('unauthorized', 'Send `Authorization: Bearer <API key>` with a known key')
    return tenant
  }
}
