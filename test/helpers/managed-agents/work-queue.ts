// The work queue of one protocol double: poll (with `block_ms` and `reclaim_older_than_ms`), ack, heartbeat
// with the optimistic `expected_last_heartbeat` check, stop, list and stats — the behaviours the SDK's
// resources/beta/environments/work.d.ts documents. docs/adr/0416-managed-agents-double-lease-rules.md.
import { EventEmitter } from 'node:events'
import { ApiFailure, badRequest, conflict, encodeWorkSecret, newId, notFound, timestamp } from './wire.js'

export type WorkState = 'queued' | 'starting' | 'active' | 'stopping' | 'stopped'
export type WorkData = { type: 'session'; id: string } | { type: 'healthcheck'; id: string }

export interface WorkItem {
  readonly id: string
  readonly environmentId: string
  readonly data: WorkData
  readonly createdAt: string
  state: WorkState
  /** Set while a poll has handed the item out and no ack has come yet. */
  polledAt: number | null
  acknowledgedAt: string | null
  startedAt: string | null
  stopRequestedAt: string | null
  stoppedAt: string | null
  lastHeartbeat: string | null
  leaseExpiresAt: number | null
  ttlSeconds: number
  /** The per-delivery bearer carried in `secret`; every delivery gets a new one. */
  sessionsToken: string
  /** Every sessions token any delivery of this item carried. */
  readonly tokens: Set<string>
  /** How many polls have handed this item out (2 or more: it was redelivered). */
  deliveries: number
  /** Heartbeats to apply whose response the double then drops (a lost heartbeat response). */
  heartbeatResponsesToLose: number
  metadata: Record<string, string>
}

export interface WorkQueueOptions {
  /** Lease TTL a heartbeat grants when the worker asks for none (the real default is server-side). */
  leaseTtlSeconds: number
  /** Whether polled items carry a `secret` with a per-item `sessions_token`. */
  issueSecrets: boolean
  /** Whether a lease lapses by itself after one TTL with no heartbeat (false: only `requeue` lapses one). */
  leasesLapse: boolean
}

/** The documented default of `reclaim_older_than_ms`. */
export const DEFAULT_RECLAIM_MS = 5000

export class WorkQueue extends EventEmitter {
  readonly items = new Map<string, WorkItem>()
  private readonly pollers = new Map<string, number>()

  constructor(private readonly options: WorkQueueOptions) {
    super()
    // Every long poll and every test or bench waiting on an item listens here; dozens at once are normal.
    this.setMaxListeners(0)
  }

  enqueue(environmentId: string, data: WorkData): WorkItem {
    const item: WorkItem = {
      id: newId('work'),
      environmentId,
      data,
      createdAt: timestamp(),
      state: 'queued',
      polledAt: null,
      acknowledgedAt: null,
      startedAt: null,
      stopRequestedAt: null,
      stoppedAt: null,
      lastHeartbeat: null,
      leaseExpiresAt: null,
      ttlSeconds: this.options.leaseTtlSeconds,
      sessionsToken: '',
      tokens: new Set(),
      deliveries: 0,
      heartbeatResponsesToLose: 0,
      metadata: {},
    }
    this.items.set(item.id, item)
    this.changed(item)
    return item
  }

  get(environmentId: string, workId: string): WorkItem {
    const item = this.items.get(workId)
    if (item === undefined || item.environmentId !== environmentId) throw notFound(`work item ${workId} not found`)
    return item
  }

  /** Hands out the oldest claimable item, waiting up to `blockMs` for one; null when there is none. */
  async poll(environmentId: string, blockMs: number | undefined, reclaimMs: number, workerId?: string) {
    if (workerId !== undefined) this.pollers.set(workerId, Date.now())
    let item = this.claimable(environmentId, reclaimMs)
    if (item === undefined && blockMs !== undefined) {
      await this.nextQueued(environmentId, blockMs)
      item = this.claimable(environmentId, reclaimMs)
    }
    if (item === undefined) return null
    item.polledAt = Date.now()
    item.deliveries += 1
    item.sessionsToken = newId('sk-ant-req')
    item.tokens.add(item.sessionsToken)
    this.changed(item)
    return item
  }

  ack(environmentId: string, workId: string): WorkItem {
    const item = this.get(environmentId, workId)
    if (item.state !== 'queued' || item.polledAt === null) {
      throw conflict(
        `work item ${workId} is ${item.state}${item.state === 'queued' ? ' and not polled' : ''}; only a polled, queued item can be acknowledged`,
      )
    }
    item.state = 'starting'
    item.polledAt = null
    item.acknowledgedAt = timestamp()
    // An acknowledged item that is never heartbeated still lapses after one TTL.
    item.leaseExpiresAt = Date.now() + item.ttlSeconds * 1000
    this.changed(item)
    return item
  }

  heartbeat(environmentId: string, workId: string, expected: string | undefined, desiredTtl: number | undefined) {
    this.lapseLeases()
    const item = this.get(environmentId, workId)
    const stored = item.lastHeartbeat ?? 'NO_HEARTBEAT'
    if (item.state === 'stopping' || item.state === 'stopped') {
      // Documented: the value is not compared once the item is stopping or stopped.
      return { item, extended: false }
    }
    if (item.state === 'queued') {
      if (expected !== undefined && expected !== 'NO_HEARTBEAT') throw this.preconditionFailed(item)
      throw conflict(`work item ${workId} is queued; acknowledge it before heartbeating`)
    }
    if (expected !== undefined && expected !== stored) throw this.preconditionFailed(item)
    if (desiredTtl !== undefined) item.ttlSeconds = desiredTtl
    item.lastHeartbeat = timestamp()
    item.leaseExpiresAt = Date.now() + item.ttlSeconds * 1000
    if (item.state === 'starting') {
      item.state = 'active'
      item.startedAt = item.lastHeartbeat
    }
    this.changed(item)
    return { item, extended: true }
  }

  stop(environmentId: string, workId: string, force: boolean): WorkItem {
    const item = this.get(environmentId, workId)
    if (item.state === 'stopped') throw conflict(`work item ${workId} is already stopped`)
    item.stopRequestedAt ??= timestamp()
    if (force || item.state === 'queued') {
      item.state = 'stopped'
      item.stoppedAt = timestamp()
      item.leaseExpiresAt = null
      item.polledAt = null
    } else {
      item.state = 'stopping'
    }
    this.changed(item)
    return item
  }

  /** Puts a held item back in the queue as if its lease had lapsed: the next poll redelivers it. */
  requeue(item: WorkItem): void {
    item.state = 'queued'
    item.polledAt = null
    item.acknowledgedAt = null
    item.lastHeartbeat = null
    item.leaseExpiresAt = null
    this.changed(item)
  }

  /** Requeues every starting or active item whose lease has run out. */
  lapseLeases(now = Date.now()): void {
    if (!this.options.leasesLapse) return
    for (const item of this.items.values()) {
      const held = item.state === 'starting' || item.state === 'active'
      if (held && item.leaseExpiresAt !== null && item.leaseExpiresAt <= now) this.requeue(item)
    }
  }

  list(environmentId: string): WorkItem[] {
    return [...this.items.values()].filter((item) => item.environmentId === environmentId)
  }

  stats(environmentId: string) {
    const queued = this.list(environmentId).filter((item) => item.state === 'queued')
    const recent = [...this.pollers.values()].filter((at) => Date.now() - at < 30_000).length
    return {
      type: 'work_queue_stats' as const,
      depth: queued.filter((item) => item.polledAt === null).length,
      pending: queued.filter((item) => item.polledAt !== null).length,
      oldest_queued_at: queued[0]?.createdAt ?? null,
      workers_polling: recent,
    }
  }

  /** Resolves when an unclaimed item is queued in the environment, or after `ms`. */
  private nextQueued(environmentId: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      const onChange = (changed: WorkItem) => {
        if (changed.environmentId === environmentId && changed.state === 'queued' && changed.polledAt === null) finish()
      }
      const finish = () => {
        clearTimeout(timer)
        this.off('change', onChange)
        resolve()
      }
      const timer = setTimeout(finish, ms)
      this.on('change', onChange)
    })
  }

  private claimable(environmentId: string, reclaimMs: number): WorkItem | undefined {
    this.lapseLeases()
    const now = Date.now()
    for (const item of this.items.values()) {
      if (item.environmentId !== environmentId || item.state !== 'queued') continue
      if (item.polledAt === null || now - item.polledAt >= reclaimMs) return item
    }
    return undefined
  }

  private preconditionFailed(item: WorkItem): ApiFailure {
    return new ApiFailure(
      412,
      'invalid_request_error',
      'expected_last_heartbeat does not match the stored heartbeat; another worker may hold the lease',
      {
        error_code: 'heartbeat_precondition_failed',
        current_state: {
          last_heartbeat: item.lastHeartbeat,
          lease_extended: false,
          state: item.state,
          ttl_seconds: item.ttlSeconds,
        },
      },
    )
  }

  private changed(item: WorkItem): void {
    this.emit('change', item)
  }

  toWire(item: WorkItem, withSecret: boolean) {
    return {
      type: 'work' as const,
      id: item.id,
      environment_id: item.environmentId,
      data: item.data,
      state: item.state,
      created_at: item.createdAt,
      acknowledged_at: item.acknowledgedAt,
      started_at: item.startedAt,
      latest_heartbeat_at: item.lastHeartbeat,
      stop_requested_at: item.stopRequestedAt,
      stopped_at: item.stoppedAt,
      metadata: item.metadata,
      secret: withSecret && this.options.issueSecrets ? encodeWorkSecret(item.sessionsToken) : null,
    }
  }
}

export function checkPollQuery(blockMs: string | null, reclaimMs: string | null) {
  const block = blockMs === null ? undefined : Number(blockMs)
  if (block !== undefined && !(Number.isInteger(block) && block >= 1 && block <= 999)) {
    throw badRequest('block_ms: must be an integer from 1 to 999 (milliseconds)')
  }
  const reclaim = reclaimMs === null ? DEFAULT_RECLAIM_MS : Number(reclaimMs)
  if (!(Number.isInteger(reclaim) && reclaim >= 0)) {
    throw badRequest('reclaim_older_than_ms: must be a non-negative integer (milliseconds)')
  }
  return { block, reclaim }
}
