import type { ApiKey } from '../auth/api-key.js'
import { ConfigError } from '../errors/config-error.js'

// Tenant names become directory names under the workspace and blob roots: keep them path-safe.
const TENANT_NAME = /^[A-Za-z0-9_-]{1,64}$/

/** Parses `tenant:key,tenant:key`; several keys may share a tenant, one key never maps to two. */
export function parseApiKeys(raw: string | undefined): ApiKey[] {
  if (raw === undefined || raw.trim() === '') return []
  const keys: ApiKey[] = []
  const seen = new Map<string, string>()
  for (const entry of raw.split(',')) {
    const trimmed = entry.trim()
    if (trimmed === '') continue
    const colon = trimmed.indexOf(':')
    const tenant = colon === -1 ? '' : trimmed.slice(0, colon)
    const key = colon === -1 ? '' : trimmed.slice(colon + 1)
    if (!TENANT_NAME.test(tenant) || key === '') {
      throw new ConfigError(
        'TOOLEXEC_API_KEYS',
        'expected comma-separated `tenant:key` pairs, tenant names of letters, digits, `_` or `-`',
      )
    }
    const owner = seen.get(key)
    if (owner !== undefined && owner !== tenant) {
      throw new ConfigError('TOOLEXEC_API_KEYS', `one key is assigned to two tenants (${owner}, ${tenant})`)
    }
    seen.set(key, tenant)
    keys.push({ tenant, key })
  }
  return keys
}
