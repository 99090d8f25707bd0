import type { ApiKey } from '../auth/api-key.js'
import { ConfigError } from '../errors/config-error.js'
import { parseList } from './parse-list.js'

/**
 * TOOLEXEC_SECRETS_ADMIN_TENANTS: the tenants whose admin keys manage the deployment's secrets
 * (docs/adr/0331-secrets-belong-to-the-deployment.md). Unset: every admin key when there is at
 * most one tenant, none when there are several (a customer's admin key must not replace the
 * operator's MCP credentials). A tenant no key belongs to can never match and is refused.
 */
export function parseSecretAdminTenants(
  raw: string | undefined,
  apiKeys: readonly ApiKey[],
): readonly string[] | 'all' {
  const tenants = new Set(apiKeys.map((key) => key.tenant))
  const listed = parseList(raw)
  if (listed.length === 0) return tenants.size <= 1 ? 'all' : []
  for (const tenant of listed) {
    if (!tenants.has(tenant))
      throw new ConfigError(
        'TOOLEXEC_SECRETS_ADMIN_TENANTS',
        `no API key belongs to tenant "${tenant}" (tenants: ${[...tenants].join(', ') || 'none, auth is off'})`,
      )
  }
  return listed
}
