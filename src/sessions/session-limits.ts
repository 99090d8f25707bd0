import { ApiError } from '../errors/api-error.js'
import type { SessionStore } from '../stores/session-store.js'
import { checkRuleBytes, type SessionRules } from './session-rules.js'

/** Caps on open sessions and on one session's rules (docs/adr/0234-session-caps.md). */
export type SessionLimits = {
  /** Sessions open at once (TOOLEXEC_MAX_SESSIONS). */
  maxSessions: number
  /** Sessions one tenant has open (TOOLEXEC_MAX_SESSIONS_PER_TENANT). */
  maxSessionsPerTenant: number
  /** Characters of one session's allow, deny and ask rules together (TOOLEXEC_MAX_SESSION_RULE_BYTES). */
  maxRuleBytes: number
}

/** How long a client refused by a session cap waits: sessions free as they end or expire. */
const SESSION_CAP_RETRY_AFTER_SECONDS = 5

/**
 * Refuses a new session over a cap (too_many_sessions, with a retry delay) or with rules over the
 * byte limit; no limits: nothing to check.
 */
export async function checkSessionLimits(
  store: SessionStore,
  limits: SessionLimits | undefined,
  tenant: string,
  rules: SessionRules | undefined,
  now: () => number,
): Promise<void> {
  if (!limits) return
  checkRuleBytes(rules ?? {}, limits.maxRuleBytes)
  const open = await store.count(tenant, now())
  const full =
    open.tenant >= limits.maxSessionsPerTenant
      ? `this tenant has ${open.tenant} sessions open (TOOLEXEC_MAX_SESSIONS_PER_TENANT=${limits.maxSessionsPerTenant})`
      : open.total >= limits.maxSessions
        ? `the service has ${open.total} sessions open (TOOLEXEC_MAX_SESSIONS=${limits.maxSessions})`
        : undefined
  if (full !== undefined) {
    throw new ApiError('too_many_sessions', `No new session: ${full}; delete sessions you no longer use, or retry`, {
      retryAfterSeconds: SESSION_CAP_RETRY_AFTER_SECONDS,
    })
  }
}
