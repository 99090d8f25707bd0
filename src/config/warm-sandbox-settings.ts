import { ConfigError } from '../errors/config-error.js'
import type { WarmSandboxSettings } from '../tools/bash/warm-sandboxes.js'

/**
 * The warm sandbox bounds (docs/adr/0390-warm-sandboxes.md). A bound below the one it contains
 * (a tenant allowed fewer than one session) could never be reached: refused at load, naming it.
 */
export function warmSandboxSettings(env: {
  TOOLEXEC_WARM_SANDBOXES: number
  TOOLEXEC_WARM_SANDBOXES_PER_TENANT?: number | undefined
  TOOLEXEC_WARM_SANDBOXES_MAX: number
  TOOLEXEC_WARM_SANDBOXES_IDLE_MS: number
}): WarmSandboxSettings {
  const perSession = env.TOOLEXEC_WARM_SANDBOXES
  if (perSession === 0)
    return { perSession: 0, perTenant: 0, perInstance: 0, idleMs: env.TOOLEXEC_WARM_SANDBOXES_IDLE_MS }
  // Unset, a tenant may hold half the instance's (16 of 32): one tenant's 8 busy sessions stay
  // warm and another tenant still finds room; never fewer than the former 8 (an instance bound
  // set alone keeps what it gave), nor more than the instance's or fewer than a session's
  // (docs/adr/0486-a-tenant-may-hold-half-the-warm-sandboxes.md).
  const instance = env.TOOLEXEC_WARM_SANDBOXES_MAX
  const perTenant =
    env.TOOLEXEC_WARM_SANDBOXES_PER_TENANT ??
    Math.max(perSession, Math.min(instance, Math.max(8, Math.floor(instance / 2))))
  if (perTenant < perSession) {
    throw new ConfigError(
      'TOOLEXEC_WARM_SANDBOXES_PER_TENANT',
      `is ${perTenant}, below TOOLEXEC_WARM_SANDBOXES (${perSession} per session): a session could never hold its warm sandboxes. Raise it, or lower TOOLEXEC_WARM_SANDBOXES (0 turns warm sandboxes off)`,
    )
  }
  if (env.TOOLEXEC_WARM_SANDBOXES_MAX < perTenant) {
    throw new ConfigError(
      'TOOLEXEC_WARM_SANDBOXES_MAX',
      `is ${env.TOOLEXEC_WARM_SANDBOXES_MAX}, below TOOLEXEC_WARM_SANDBOXES_PER_TENANT (${perTenant}): a tenant could never hold its warm sandboxes. Raise it, or lower the per-tenant bound`,
    )
  }
  return {
    perSession,
    perTenant,
    perInstance: env.TOOLEXEC_WARM_SANDBOXES_MAX,
    idleMs: env.TOOLEXEC_WARM_SANDBOXES_IDLE_MS,
  }
}
