import { ConfigError } from '../errors/config-error.js'
import type { WarmSandboxSettings } from '../tools/bash/warm-sandboxes.js'

/**
 * The warm sandbox bounds (docs/adr/0390-warm-sandboxes.md). A bound below the one it contains
 * (a tenant allowed fewer than one session) could never be reached: refused at load, naming it.
 */
export function warmSandboxSettings(env: {
  TOOLEXEC_WARM_SANDBOXES: number
  TOOLEXEC_WARM_SANDBOXES_PER_TENANT: number
  TOOLEXEC_WARM_SANDBOXES_MAX: number
  TOOLEXEC_WARM_SANDBOXES_IDLE_MS: number
}): WarmSandboxSettings {
  const perSession = env.TOOLEXEC_WARM_SANDBOXES
  if (perSession === 0)
    return { perSession: 0, perTenant: 0, perInstance: 0, idleMs: env.TOOLEXEC_WARM_SANDBOXES_IDLE_MS }
  if (env.TOOLEXEC_WARM_SANDBOXES_PER_TENANT < perSession) {
    throw new ConfigError(
      'TOOLEXEC_WARM_SANDBOXES_PER_TENANT',
      `is ${env.TOOLEXEC_WARM_SANDBOXES_PER_TENANT}, below TOOLEXEC_WARM_SANDBOXES (${perSession} per session): a session could never hold its warm sandboxes. Raise it, or lower TOOLEXEC_WARM_SANDBOXES (0 turns warm sandboxes off)`,
    )
  }
  if (env.TOOLEXEC_WARM_SANDBOXES_MAX < env.TOOLEXEC_WARM_SANDBOXES_PER_TENANT) {
    throw new ConfigError(
      'TOOLEXEC_WARM_SANDBOXES_MAX',
      `is ${env.TOOLEXEC_WARM_SANDBOXES_MAX}, below TOOLEXEC_WARM_SANDBOXES_PER_TENANT (${env.TOOLEXEC_WARM_SANDBOXES_PER_TENANT}): a tenant could never hold its warm sandboxes. Raise it, or lower the per-tenant bound`,
    )
  }
  return {
    perSession,
    perTenant: env.TOOLEXEC_WARM_SANDBOXES_PER_TENANT,
    perInstance: env.TOOLEXEC_WARM_SANDBOXES_MAX,
    idleMs: env.TOOLEXEC_WARM_SANDBOXES_IDLE_MS,
  }
}
