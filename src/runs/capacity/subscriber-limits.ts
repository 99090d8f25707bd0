import { ApiError } from '../../errors/api-error.js'
import { RETRY_AFTER_SECONDS } from './admission.js'

export type SubscriberLimitOptions = { maxPerRun: number; maxPerTenant: number }

/**
 * Open event subscriptions, per run and per tenant, capped: each one holds a socket and up to
 * TOOLEXEC_MAX_SUBSCRIBER_BUFFER_BYTES of unsent events (docs/adr/0126-slow-subscribers-are-cut-off-by-bytes.md).
 */
export function createSubscriberLimits(options: SubscriberLimitOptions) {
  const perRun = new Map<string, number>()
  const perTenant = new Map<string, number>()
  const bump = (map: Map<string, number>, key: string, by: number) => {
    const next = (map.get(key) ?? 0) + by
    if (next === 0) map.delete(key)
    else map.set(key, next)
  }

  /** Throws `too_many_subscribers` (429) when one more would pass a cap. */
  function check(tenant: string, runId: string): void {
    const runKey = `${tenant}\u0000${runId}`
    if ((perRun.get(runKey) ?? 0) >= options.maxPerRun) {
      throw new ApiError(
        'too_many_subscribers',
        `Run ${runId} has ${options.maxPerRun} subscribers, the most allowed`,
        {
          retryAfterSeconds: RETRY_AFTER_SECONDS,
        },
      )
    }
    if ((perTenant.get(tenant) ?? 0) >= options.maxPerTenant) {
      throw new ApiError(
        'too_many_subscribers',
        `This tenant has ${options.maxPerTenant} event subscribers open, the most allowed`,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      )
    }
  }

  /** Counts one subscriber (after `check`); the returned function frees it, once. */
  function acquire(tenant: string, runId: string): () => void {
    check(tenant, runId)
    const runKey = `${tenant}\u0000${runId}`
    bump(perRun, runKey, 1)
    bump(perTenant, tenant, 1)
    let released = false
    return () => {
      if (released) return
      released = true
      bump(perRun, runKey, -1)
      bump(perTenant, tenant, -1)
    }
  }

  return { check, acquire }
}
