import type Anthropic from '@anthropic-ai/sdk'
import type { Logger } from '../logging/logger.js'
import { apiStatusOf, isFinalRefusal, sleep } from './api-status.js'

/**
 * Why a claim on a work item ended. `lost`: a heartbeat got 412 (the item is someone else's now),
 * or none succeeded for a whole TTL; `stopping`: the server asked the worker to stop, or stopped
 * extending the lease; `released`: this worker let go.
 */
export type LeaseEnd = 'lost' | 'stopping' | 'released'

export type WorkItemRef = { id: string; environment_id: string }

/** Before the first answer says otherwise (the reference worker's defaults). */
const DEFAULT_TTL_MS = 90_000
const MAX_INTERVAL_MS = 30_000
/** The first expected_last_heartbeat of a claim, as the SDK's worker sends it. */
const NO_HEARTBEAT = 'NO_HEARTBEAT'

/**
 * Heartbeats one claimed work item until `signal` aborts or the lease ends (docs/adr/0403): the
 * first beat at once, then every half TTL as the server states it (at most 30 s), sooner after a
 * failed beat. Resolves with why it ended; `onEnd` runs first, so the session's calls are
 * stopped before anything else happens.
 */
export async function keepLease(
  client: Anthropic,
  work: WorkItemRef,
  options: { signal: AbortSignal; log: Logger; onEnd: (end: LeaseEnd) => void; onTtl?: (ttlMs: number) => void },
): Promise<LeaseEnd> {
  const { signal, log } = options
  let ttlMs = DEFAULT_TTL_MS
  let lastSuccess = Date.now()
  let expected = NO_HEARTBEAT
  /** When a beat whose answer never came was sent: the server may have applied it. */
  let unanswered: number | undefined
  const end = (why: LeaseEnd, details: Record<string, unknown>, message: string) => {
    if (why === 'lost') log.error({ workId: work.id, ...details }, message)
    else log.info({ workId: work.id, ...details }, message)
    options.onEnd(why)
    return why
  }
  while (!signal.aborted) {
    const interval = Math.min(ttlMs / 2, MAX_INTERVAL_MS)
    const sentAt = Date.now()
    const beat = AbortSignal.any([signal, AbortSignal.timeout(Math.max(interval, 50))])
    try {
      const answer = await client.beta.environments.work.heartbeat(
        work.id,
        { environment_id: work.environment_id, expected_last_heartbeat: expected },
        { signal: beat, maxRetries: 0 },
      )
      lastSuccess = Date.now()
      unanswered = undefined
      expected = answer.last_heartbeat
      if (answer.ttl_seconds > 0) {
        ttlMs = answer.ttl_seconds * 1000
        options.onTtl?.(ttlMs)
      }
      if (answer.state === 'stopping' || answer.state === 'stopped')
        return end('stopping', { state: answer.state }, 'the work item is stopping: its session ends here')
      if (!answer.lease_extended) return end('stopping', {}, 'the lease was not extended: its session ends here')
      await sleep(Math.min(ttlMs / 2, MAX_INTERVAL_MS), signal)
    } catch (error) {
      if (signal.aborted) break
      if (apiStatusOf(error) === 412) {
        const recorded = adoptableBeat(error, unanswered, ttlMs)
        if (recorded !== undefined) {
          // anthropic-sdk-python#1779: the beat whose answer was lost was applied. The lease it
          // renewed cannot have lapsed since, so nobody else holds the item: carry on from it.
          log.info({ workId: work.id }, 'a heartbeat answer was lost; continuing from the beat the server recorded')
          expected = recorded
          unanswered = undefined
          continue
        }
        return end(
          'lost',
          { status: 412 },
          'lease lost: a heartbeat was refused as stale (412); the calls here stop unanswered',
        )
      }
      if (isFinalRefusal(error))
        return end('lost', { status: apiStatusOf(error) }, 'lease lost: a heartbeat was refused')
      if (Date.now() - lastSuccess > ttlMs)
        return end('lost', { ttlMs }, 'lease assumed lost: no heartbeat succeeded for a whole TTL')
      // No answer at all (the connection failed): the server may have applied this beat.
      if (apiStatusOf(error) === undefined) unanswered ??= sentAt
      log.warn({ workId: work.id, err: error }, 'a heartbeat failed; trying again')
      await sleep(Math.min(ttlMs / 8, 2000), signal)
    }
  }
  return 'released'
}

/**
 * The last heartbeat a 412 reports, when it can only be ours: a beat of ours went unanswered less
 * than a TTL ago (so the lease it renewed still holds) and the item is still active.
 */
function adoptableBeat(error: unknown, unanswered: number | undefined, ttlMs: number): string | undefined {
  if (unanswered === undefined || Date.now() - unanswered >= ttlMs) return undefined
  const body = (error as { error?: unknown }).error as
    | { error?: { details?: { current_state?: { state?: string; last_heartbeat?: string | null } } } }
    | undefined
  const current = body?.error?.details?.current_state
  if (current?.state !== 'active' || typeof current.last_heartbeat !== 'string') return undefined
  return current.last_heartbeat
}
