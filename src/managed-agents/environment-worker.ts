import { randomUUID } from 'node:crypto'
import type Anthropic from '@anthropic-ai/sdk'
import { isApiError } from '../errors/api-error.js'
import type { Logger } from '../logging/logger.js'
import type { RunManager } from '../runs/run-manager.js'
import type { InputLimits } from '../runs/run-request.js'
import type { SessionService } from '../sessions/session-service.js'
import type { CallJournal } from '../stores/call-journal.js'
import { apiStatusOf, isFinalRefusal, sleep } from './api-status.js'
import { keepLease, type LeaseEnd } from './keep-lease.js'
import { createSessionServer } from './serve-session.js'
import { sessionsTokenOf } from './sessions-token.js'

export type EnvironmentWorkerOptions = {
  /** Authenticated with the environment key. */
  client: Anthropic
  environmentId: string
  tenant: string
  /** This instance, as the call journal names it. */
  owner: string
  maxSessions: number
  idleMs: number
  pollIntervalMs: number
  journal: CallJournal
  runManager: Pick<RunManager, 'start' | 'subscribe'>
  sessions: Pick<SessionService, 'create'>
  limits: InputLimits
  log: Logger
  /** Marks a stalled session's run in the run store (GET /v1/runs `stalled_since`). */
  markStalled: (runId: string, since: string | undefined) => Promise<void>
}

/**
 * The toolexec session standing for a Managed Agents one. Its calls were judged by the session's
 * own policy (allowed, or confirmed by the user), so toolexec's no-rule ask would ask again: the
 * session runs in bypassPermissions, where deny rules, ask rules and hooks still apply (the
 * operator's deny wins). Where the operator disabled that mode, the operator's default mode
 * stands and its asks go to the approvals flow (docs/adr/0404).
 */
async function createSession(sessions: Pick<SessionService, 'create'>, tenant: string) {
  try {
    return await sessions.create(tenant, { permission_mode: 'bypassPermissions' })
  } catch (error) {
    if (!isApiError(error) || error.code !== 'permission_mode_forbidden') throw error
    return sessions.create(tenant, {})
  }
}

type WorkItem = Awaited<ReturnType<Anthropic['beta']['environments']['work']['poll']>> & {}

/** A session waiting on calls of ours, none of them running here, this long is stalled (/readyz, metrics). */
export const STALLED_AFTER_MS = 5000

/** The longest long-poll the API takes (block_ms is 1–999). */
const POLL_BLOCK_MS = 999
const POLL_BACKOFF_MS = [500, 1000, 2000, 5000, 10_000] as const

/**
 * The worker side of one Managed Agents environment (docs/managed-agents.md): polls the work queue,
 * acks each item at once, answers healthchecks, and serves many sessions side by side — at most
 * `maxSessions`, and their runs under the admission caps like any other run (docs/adr/0400).
 */
export function createEnvironmentWorker(options: EnvironmentWorkerOptions) {
  const { client, environmentId, log } = options
  const controller = new AbortController()
  const active = new Map<string, ReturnType<typeof createSessionServer>>()
  const handling = new Set<Promise<void>>()
  let freed: (() => void) | undefined
  let leasesLost = 0

  async function stopItem(scoped: Anthropic, work: WorkItem) {
    try {
      await scoped.beta.environments.work.stop(work.id, { environment_id: work.environment_id, force: true })
    } catch (error) {
      // 409: already stopped.
      if (apiStatusOf(error) !== 409) log.warn({ err: error, workId: work.id }, 'stopping a work item failed')
    }
  }

  async function serveItem(work: WorkItem) {
    const token = sessionsTokenOf(work.secret)
    const scoped = token === null ? client : client.withOptions({ apiKey: null, authToken: token })
    await client.beta.environments.work.ack(work.id, { environment_id: work.environment_id })
    if (work.data.type !== 'session') {
      // A healthcheck: claimed and acknowledged is the answer; stopping it hands it back done.
      await stopItem(scoped, work)
      return
    }
    const maSessionId = work.data.id
    const itemLog = log.child({ workId: work.id, maSessionId })
    const claim = new AbortController()
    const heartbeat = new AbortController()
    let leaseEnd: LeaseEnd | undefined
    const lease = keepLease(scoped, work, {
      signal: heartbeat.signal,
      log: itemLog,
      onEnd: (end) => {
        leaseEnd = end
        if (end === 'lost') leasesLost += 1
        claim.abort()
      },
    })
    try {
      const session = await createSession(options.sessions, options.tenant)
      const server = createSessionServer({
        client: scoped,
        maSessionId,
        tenant: options.tenant,
        sessionId: session.sessionId,
        // Per claim, not per instance: a call this instance started under a claim it lost is, to
        // its next claim of the same item, a call that may have had effects (docs/adr/0402).
        owner: `${options.owner}/${work.id}/${randomUUID().slice(0, 8)}`,
        journal: options.journal,
        runManager: options.runManager,
        limits: options.limits,
        log: itemLog,
        signal: AbortSignal.any([claim.signal, controller.signal]),
        lost: () => leaseEnd === 'lost',
        idleMs: options.idleMs,
        stalledAfterMs: STALLED_AFTER_MS,
        markStalled: options.markStalled,
      })
      active.set(work.id, server)
      const end = await server.serve()
      itemLog.info({ end, lease: leaseEnd ?? 'held' }, 'a Managed Agents session left this worker')
    } finally {
      active.delete(work.id)
      heartbeat.abort()
      await lease
      // A lost item is someone else's now; any other is given back stopped.
      if (leaseEnd !== 'lost') await stopItem(scoped, work)
    }
  }

  function handle(work: WorkItem) {
    const task = serveItem(work)
      .catch((error: unknown) => log.error({ err: error, workId: work.id }, 'a Managed Agents work item failed'))
      .finally(() => {
        handling.delete(task)
        freed?.()
      })
    handling.add(task)
  }

  async function pollLoop() {
    const { signal } = controller
    for (let failures = 0; !signal.aborted; ) {
      if (handling.size >= options.maxSessions) {
        await new Promise<void>((resolve) => {
          freed = resolve
        })
        continue
      }
      const began = Date.now()
      try {
        const work = await client.beta.environments.work.poll(
          environmentId,
          { block_ms: POLL_BLOCK_MS },
          { signal, maxRetries: 0 },
        )
        failures = 0
        if (work) handle(work)
        // An answer sooner than the long poll would wait: this server does not block, so pause.
        else if (Date.now() - began < POLL_BLOCK_MS / 2) await sleep(options.pollIntervalMs, signal)
      } catch (error) {
        if (signal.aborted) break
        const level = isFinalRefusal(error) ? 'error' : 'warn'
        log[level]({ err: error, environmentId }, 'polling the Managed Agents work queue failed')
        await sleep(POLL_BACKOFF_MS[Math.min(failures, POLL_BACKOFF_MS.length - 1)]!, signal)
        failures += 1
      }
    }
  }

  let loop: Promise<void> | undefined
  return {
    start() {
      loop ??= pollLoop()
    },
    /** Stops polling and every session here; their calls are cancelled with the shutdown texts. */
    async close() {
      controller.abort()
      freed?.()
      await loop
      await Promise.all(handling)
    },
    /** Sessions served here, for /readyz, the metrics and the runs list. */
    status(now = Date.now()) {
      const sessions = [...active.values()].map((server) => server.status(now))
      return { sessions, leasesLost }
    },
  }
}

export type EnvironmentWorker = ReturnType<typeof createEnvironmentWorker>
