import type { z } from 'zod'
import { ConfigError } from '../errors/config-error.js'
import { isSecretName, SECRET_NAME_RULE } from '../secrets/secret-name.js'
import type { EnvSchema } from './config-schema.js'

type Env = z.infer<typeof EnvSchema>

/** Worker mode (docs/managed-agents.md): which environment to poll, with what key, for which tenant. */
export type ManagedAgentsConfig = {
  environmentId: string
  /** The environment key: a secret, never logged. */
  key: string
  baseUrl?: string
  tenant: string
  /** Sessions this instance serves at once; runs and calls stay under the admission caps too. */
  maxSessions: number
  /** How long a session whose turn ended is held before its item is given back. */
  idleMs: number
  /** The pause after a poll that found no work. */
  pollIntervalMs: number
}

/**
 * Worker mode is on when the environment is named; a key without an environment, or the other way
 * round, is a setting that can never work and is refused (docs/adr/0400).
 */
export function managedAgentsConfigOf(
  env: Env,
  tenantNames: readonly string[] | undefined,
): ManagedAgentsConfig | undefined {
  const environmentId = env.TOOLEXEC_MANAGED_AGENTS_ENVIRONMENT
  const key = env.TOOLEXEC_MANAGED_AGENTS_KEY
  if (environmentId === undefined) {
    if (key !== undefined)
      throw new ConfigError(
        'TOOLEXEC_MANAGED_AGENTS_KEY',
        'is set but TOOLEXEC_MANAGED_AGENTS_ENVIRONMENT is not: name the environment to poll',
      )
    return undefined
  }
  if (key === undefined)
    throw new ConfigError(
      'TOOLEXEC_MANAGED_AGENTS_KEY',
      'must be set when TOOLEXEC_MANAGED_AGENTS_ENVIRONMENT is: it is the environment key the work queue takes',
    )
  if (key.includes('${secret:')) {
    const name = secretReferenceOf(key)
    if (name === undefined || !isSecretName(name))
      throw new ConfigError(
        'TOOLEXEC_MANAGED_AGENTS_KEY',
        `must be the key, or exactly \${secret:NAME} (${SECRET_NAME_RULE})`,
      )
    if (env.TOOLEXEC_SECRET_KEY === undefined)
      throw new ConfigError(
        'TOOLEXEC_MANAGED_AGENTS_KEY',
        'names a secret, but TOOLEXEC_SECRET_KEY is not set: no secret can be read',
      )
  }
  const tenant = env.TOOLEXEC_MANAGED_AGENTS_TENANT
  if (tenantNames !== undefined && !tenantNames.includes(tenant)) {
    throw new ConfigError(
      'TOOLEXEC_MANAGED_AGENTS_TENANT',
      `names tenant "${tenant}", which no API key belongs to (tenants: ${tenantNames.join(', ')})`,
    )
  }
  return {
    environmentId,
    key,
    ...(env.TOOLEXEC_MANAGED_AGENTS_BASE_URL === undefined ? {} : { baseUrl: env.TOOLEXEC_MANAGED_AGENTS_BASE_URL }),
    tenant,
    maxSessions: env.TOOLEXEC_MANAGED_AGENTS_MAX_SESSIONS,
    idleMs: env.TOOLEXEC_MANAGED_AGENTS_IDLE_MS,
    pollIntervalMs: env.TOOLEXEC_MANAGED_AGENTS_POLL_INTERVAL_MS,
  }
}

/** NAME of a key given as `${secret:NAME}` (the whole value), else undefined. */
export function secretReferenceOf(key: string): string | undefined {
  return /^\$\{secret:([^}]*)\}$/.exec(key)?.[1]
}
