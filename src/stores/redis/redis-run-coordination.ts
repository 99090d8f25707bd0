import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { ControlHandler, HeldRun, RunCoordination } from '../run-coordination.js'
import { redisKeys } from './redis-keys.js'

export type RedisRunCoordinationOptions = {
  redis: Redis
  subscriber: Redis
  instanceId: string
  /** TOOLEXEC_INSTANCE_LEASE_MS: how long a run outlives its instance's last heartbeat. */
  leaseMs: number
  /** How long `send` waits for the executing instance to answer. */
  replyTimeoutMs?: number
}

/** `refuse`: the shared-volume check failed or has not run; no runs until it is cleared (open-redis-stores.ts). */
export type RedisRunCoordination = RunCoordination & { refuse(reason: string | undefined): void }

/** KEYS: lease, running runs. ARGV: instance id, lease ms, run id, tenant. */
const HOLD_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
redis.call('HSET', KEYS[2], ARGV[3], ARGV[4])
return 1
`

/** KEYS: lease, running runs. ARGV: run id. */
const RELEASE_SCRIPT = `
redis.call('DEL', KEYS[1])
redis.call('HDEL', KEYS[2], ARGV[1])
return 1
`

/**
 * Claims a run as lost when it has no lease and is still listed as running: hold and release set
 * and clear both together, so a run released since the listing is not lost
 * (docs/adr/0513-a-released-run-is-not-claimed-as-lost.md). One survivor claims it: the mark is set
 * only if absent. KEYS: lease, running runs, recovering mark. ARGV: run id, instance id, mark ms.
 */
const CLAIM_LOST_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return 0 end
if redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3], 'NX') then return 1 end
return 0
`

type HoldCommands = {
  toolexecHold(...args: string[]): Promise<number>
  toolexecRelease(...args: string[]): Promise<number>
  toolexecClaimLost(...args: string[]): Promise<number>
}

type Envelope = { id: string; runId: string; replyTo: string; message: unknown }

/** `null`: the instance no longer holds the run. */
type Reply = { id: string; applied: boolean | null }

/**
 * Leases, heartbeats and control messages on Redis (docs/adr/0111-run-leases.md). Each run this
 * instance executes has a lease key, holding this instance's id, refreshed every third of the
 * lease; control messages go to the channel of the instance the lease names and are answered on
 * the sender's reply channel. One channel per instance, subscribed once: a run costs no
 * SUBSCRIBE/UNSUBSCRIBE round trips (docs/adr/0179-one-control-channel-per-instance.md).
 */
export function createRedisRunCoordination(options: RedisRunCoordinationOptions): RedisRunCoordination {
  const { redis, subscriber, instanceId, leaseMs } = options
  redis.defineCommand('toolexecHold', { numberOfKeys: 2, lua: HOLD_SCRIPT })
  redis.defineCommand('toolexecRelease', { numberOfKeys: 2, lua: RELEASE_SCRIPT })
  redis.defineCommand('toolexecClaimLost', { numberOfKeys: 3, lua: CLAIM_LOST_SCRIPT })
  const commands = redis as unknown as HoldCommands
  const replyTimeoutMs = options.replyTimeoutMs ?? 5000
  const held = new Map<string, ControlHandler>()
  const waiting = new Map<string, (applied: boolean | null) => void>()
  const replyChannel = redisKeys.replyChannel(instanceId)
  const controlChannel = redisKeys.controlChannel(instanceId)
  /** When both connections were last (re)established: leases are judged only a lease after it. */
  let connectedSince = redis.status === 'ready' ? Date.now() : Number.POSITIVE_INFINITY
  let mismatch: string | undefined

  const refresh = async () => {
    if (held.size === 0) return
    const multi = redis.multi()
    for (const runId of held.keys()) multi.set(redisKeys.lease(runId), instanceId, 'PX', leaseMs)
    await multi.exec()
  }
  const heartbeat = setInterval(() => void refresh().catch(() => undefined), Math.max(50, Math.floor(leaseMs / 3)))
  heartbeat.unref()
  redis.on('ready', () => {
    connectedSince = Date.now()
    // Back from an outage: renew at once, before any other instance judges these leases.
    void refresh().catch(() => undefined)
  })
  redis.on('close', () => {
    connectedSince = Number.POSITIVE_INFINITY
  })

  const listeners = new Set<(message: unknown) => void>()
  const subscribed = subscriber.subscribe(replyChannel, controlChannel, redisKeys.announceChannel)
  subscribed.catch(() => undefined)
  subscriber.on('message', (channel: string, payload: string) => {
    if (channel === replyChannel) {
      const { id, applied } = JSON.parse(payload) as Reply
      waiting.get(id)?.(applied)
      return
    }
    if (channel === redisKeys.announceChannel) {
      const message = JSON.parse(payload) as unknown
      for (const listener of listeners) listener(message)
      return
    }
    if (channel !== controlChannel) return
    const envelope = JSON.parse(payload) as Envelope
    const handler = held.get(envelope.runId)
    void Promise.resolve()
      .then(() => (handler ? handler(envelope.message) : null))
      .catch(() => false)
      .then((applied) => redis.publish(envelope.replyTo, JSON.stringify({ id: envelope.id, applied } satisfies Reply)))
      .catch(() => undefined)
  })

  return {
    available: () => redis.status === 'ready' && mismatch === undefined,
    unavailableReason() {
      if (mismatch !== undefined) return mismatch
      return redis.status === 'ready' ? undefined : `redis is unreachable (connection ${redis.status})`
    },
    async hold({ runId, tenant }, handler) {
      held.set(runId, handler)
      await subscribed
      // One script each way, not MULTI, two writes and EXEC (docs/adr/0370-redis-writes-as-one-script-each.md).
      await commands.toolexecHold(redisKeys.lease(runId), redisKeys.running, instanceId, String(leaseMs), runId, tenant)
      return async () => {
        held.delete(runId)
        await commands.toolexecRelease(redisKeys.lease(runId), redisKeys.running, runId)
      }
    },
    async announce(message) {
      await redis.publish(redisKeys.announceChannel, JSON.stringify(message))
    },
    onAnnouncement(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async send(runId, message) {
      await subscribed
      const id = randomUUID()
      // The lease names the instance executing the run; none: no instance holds it.
      const owner = await redis.get(redisKeys.lease(runId))
      if (owner === null) return undefined
      const answered = new Promise<boolean | undefined>((resolve) => {
        const timer = setTimeout(() => {
          waiting.delete(id)
          resolve(undefined)
        }, replyTimeoutMs)
        waiting.set(id, (applied) => {
          clearTimeout(timer)
          waiting.delete(id)
          resolve(applied ?? undefined)
        })
      })
      const envelope: Envelope = { id, runId, replyTo: replyChannel, message }
      const receivers = await redis.publish(redisKeys.controlChannel(owner), JSON.stringify(envelope))
      if (receivers === 0) {
        waiting.get(id)?.(false)
        return undefined
      }
      return answered
    },
    async claimLostRuns() {
      if (Date.now() - connectedSince < leaseMs) return []
      const running = await redis.hgetall(redisKeys.running)
      const lost: HeldRun[] = []
      for (const [runId, tenant] of Object.entries(running)) {
        if (held.has(runId)) continue
        // Runs finish while the listing is walked: a lease gone with its run is not a lost run.
        // One survivor closes the run; the mark outlives the closing by far.
        const claimed = await commands.toolexecClaimLost(
          redisKeys.lease(runId),
          redisKeys.running,
          redisKeys.recovering(runId),
          runId,
          instanceId,
          String(leaseMs * 6),
        )
        if (claimed === 1) lost.push({ runId, tenant })
      }
      return lost
    },
    async forget(runId) {
      await redis.hdel(redisKeys.running, runId)
    },
    async close() {
      clearInterval(heartbeat)
    },
    refuse(reason) {
      mismatch = reason
    },
  }
}
