import { randomUUID } from 'node:crypto'
import { deferred } from '../async/deferred.js'
import { ApiError } from '../errors/api-error.js'
import type { RunEvent } from '../events/run-event.js'
import type { HookRunner } from '../executor/hook-runner.js'
import { ALLOW_ALL } from '../executor/permission-gate.js'
import type { RunExecutor, RunExecutorOptions } from '../executor/run-executor-types.js'
import type { CancelMode } from '../executor/run-options.js'
import type { SessionContext } from '../executor/session-context.js'
import { lazyChild } from '../logging/lazy-child.js'
import { type Logger, SILENT_LOGGER } from '../logging/logger.js'
import type { SessionService } from '../sessions/session-service.js'
import type { RunCoordination } from '../stores/run-coordination.js'
import type { RunMode, RunRecord } from '../stores/run-store.js'
import type { SessionRecord } from '../stores/session-store.js'
import type { Stores } from '../stores/stores.js'
import type { Tools } from '../tool/tool.js'
import type { Admission } from './capacity/admission.js'
import type { PermissionAnswer } from './control/permission-broker.js'
import { applyRemoteControl, type RemoteControl } from './control/remote-control.js'
import { type LiveRun, launchRun, type PermissionGateFactory } from './live-run.js'
import { runElsewhere } from './lost/run-elsewhere.js'
import type { PreparedInput } from './run-input.js'
import { permissionTimeoutOf, type RunRequestOptions, runOptionsOf } from './run-request-options.js'

export type StartRunRequest = {
  tenant: string
  sessionId?: string
  mode: RunMode
  input: PreparedInput
  options: RunRequestOptions
  idempotency?: { key: string; fingerprint: string }
  logger?: Logger
}

/** What `start` hands back: the run itself when it started here, or the earlier run a retry maps to. */
export type RunHandle = { runId: string; live?: LiveRun; finished: Promise<RunRecord> }

export type RunManagerOptions = {
  stores: Stores
  sessions: SessionService
  /** The tool pool a run's calls are looked up in, for the session context it starts from. */
  toolsFor: (context: SessionContext) => Tools | Promise<Tools>
  createExecutor: (options: RunExecutorOptions) => RunExecutor
  permissionGateFor?: PermissionGateFactory
  hooks?: HookRunner
  /** Caps on open runs and calls in flight; absent: unbounded (unit tests). */
  admission?: Admission
  limits: { maxToolUseConcurrency: number; maxResultChars: number; permissionTimeoutMs: number; runTtlMs: number }
  logger?: Logger
  now?: () => number
  /** Other instances on the same shared store (docs/adr/0111-run-leases.md); absent in memory mode. */
  coordination?: RunCoordination
}

/**
 * Runs as the API sees them: starting (with Idempotency-Key replay), reading, cancelling,
 * answering permission asks, subscribing to events, and draining on shutdown.
 */
export function createRunManager(options: RunManagerOptions) {
  const { stores, sessions, limits, coordination } = options
  const now = options.now ?? Date.now
  const baseLogger = options.logger ?? SILENT_LOGGER
  const live = new Map<string, LiveRun>()
  /** Runs between their idempotency claim and their launch: a concurrent retry waits on these. */
  const starting = new Map<string, Promise<LiveRun>>()
  const observers = new Set<(event: RunEvent, tenant: string) => void>()
  const tickets = new Map<string, ReturnType<Admission['admit']>>()
  let shuttingDown = false
  let drained: Promise<void> | undefined

  const dependencies = {
    stores,
    sessions,
    createExecutor: options.createExecutor,
    permissionGateFor: options.permissionGateFor ?? (() => ALLOW_ALL),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    runTtlMs: limits.runTtlMs,
    now,
    observe: (event: RunEvent, tenant: string) => {
      if (event.type === 'tool.result') tickets.get(event.run_id)?.callAnswered()
      for (const observer of observers) observer(event, tenant)
    },
  }

  async function launch(request: StartRunRequest, runId: string): Promise<LiveRun> {
    if (shuttingDown) throw new ApiError('shutting_down', 'The server is shutting down and takes no new runs')
    const { tenant } = request
    const ticket = options.admission?.admit(tenant, request.input.blocks.length)
    if (ticket) tickets.set(runId, ticket)
    const released = () => {
      tickets.delete(runId)
      ticket?.release()
    }
    // Held before the run exists: its lease and control channel cover it from its first event.
    // The session is claimed meanwhile: on Redis both are round trips, and neither needs the other.
    const [holding, claiming] = await Promise.allSettled([
      coordination?.hold({ runId, tenant }, (message) => applyRemoteControl(live.get(runId), message)),
      claimSession(request, runId),
    ])
    if (holding.status === 'rejected' || claiming.status === 'rejected') {
      released()
      if (holding.status === 'fulfilled') await holding.value?.()
      if (claiming.status === 'fulfilled') await endSession(request, claiming.value, runId)
      throw holding.status === 'rejected' ? holding.reason : (claiming as PromiseRejectedResult).reason
    }
    const releaseHold = holding.value
    const session = claiming.value
    const logger = lazyChild(request.logger ?? baseLogger, { runId, sessionId: session.sessionId })
    try {
      const run = await launchRun(dependencies, {
        runId,
        session,
        mode: request.mode,
        tools: await options.toolsFor(sessions.contextFor(session)),
        ...request.input,
        runOptions: runOptionsOf(request.options, limits),
        permissionTimeoutMs: permissionTimeoutOf(request.mode, request.options, limits),
        ...(request.idempotency ? { idempotencyKey: request.idempotency.key } : {}),
        ephemeralSession: request.sessionId === undefined,
        logger,
      })
      live.set(runId, run)
      void run.finished.finally(() => {
        live.delete(runId)
        released()
        releaseHold?.().catch((error: unknown) => logger.error({ err: error }, 'releasing the run lease failed'))
      })
      logger.info({ mode: request.mode, blocks: request.input.blocks.length }, 'run started')
      return run
    } catch (error) {
      released()
      await endSession(request, session, runId)
      await releaseHold?.()
      throw error
    }
  }

  /** A run that never started gives its session back: a session made for it alone goes. */
  async function endSession(request: StartRunRequest, session: SessionRecord, runId: string): Promise<void> {
    if (request.sessionId === undefined) await sessions.delete(request.tenant, session.sessionId)
    else await sessions.release(session, runId)
  }

  function claimSession(request: StartRunRequest, runId: string) {
    const { tenant } = request
    return request.sessionId ? sessions.claim(tenant, request.sessionId, runId) : sessions.create(tenant, {}, runId)
  }

  async function replay(tenant: string, runId: string): Promise<RunHandle> {
    const run = (await starting.get(runId)) ?? live.get(runId)
    if (run) return { runId, finished: run.finished }
    if (coordination) return { runId, ...(await runElsewhere(stores, tenant, runId)) }
    const record = await stores.runs.get(tenant, runId)
    if (!record) throw new ApiError('run_not_found', `Run ${runId} has expired`)
    return { runId, finished: Promise.resolve(record) }
  }

  async function start(request: StartRunRequest): Promise<RunHandle> {
    if (coordination && !coordination.available()) {
      // Redis is usually back within seconds (docs/operations.md, "Redis unreachable").
      throw new ApiError(
        'store_unavailable',
        `New runs wait for the shared store: ${coordination.unavailableReason()}`,
        { retryAfterSeconds: 2 },
      )
    }
    const runId = `run_${randomUUID()}`
    if (!request.idempotency) {
      const run = await launch(request, runId)
      return { runId, live: run, finished: run.finished }
    }
    const { key, fingerprint } = request.idempotency
    // Registered before the claim, so a retry that loses the race always finds something to wait on.
    const launching = deferred<LiveRun>()
    starting.set(runId, launching.promise)
    try {
      const existing = await stores.idempotency.claim(request.tenant, key, { runId, fingerprint })
      if (existing) {
        if (existing.fingerprint !== fingerprint) {
          throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request body')
        }
        return await replay(request.tenant, existing.runId)
      }
      const run = await launch(request, runId).catch(async (error: unknown) => {
        await stores.idempotency.release(request.tenant, key, runId)
        throw error
      })
      launching.resolve(run)
      return { runId, live: run, finished: run.finished }
    } catch (error) {
      launching.reject(error)
      throw error
    } finally {
      starting.delete(runId)
    }
  }

  async function get(tenant: string, runId: string): Promise<RunRecord> {
    const record = await stores.runs.get(tenant, runId)
    if (!record) throw new ApiError('run_not_found', `No run ${runId}`)
    return record
  }

  /**
   * Takes no new runs, lets running ones finish for up to `graceMs`, then cancels the rest
   * (their calls still get results) and waits for their final records.
   */
  async function drain(graceMs: number): Promise<void> {
    shuttingDown = true
    const runs = () => [...live.values()]
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise((resolve) => {
      timer = setTimeout(resolve, graceMs)
    })
    await Promise.race([Promise.allSettled(runs().map((run) => run.finished)), deadline])
    clearTimeout(timer)
    for (const run of runs()) {
      run.cancel('cancel')
      run.endInput()
    }
    await Promise.allSettled(runs().map((run) => run.finished))
  }

  /** To the instance executing the run, when it is another one. */
  const sendRemote = async (runId: string, message: RemoteControl) =>
    (await coordination?.send(runId, message)) === true

  return {
    start,
    get,
    async cancel(tenant: string, runId: string, mode: CancelMode = 'cancel'): Promise<RunRecord> {
      const record = await get(tenant, runId)
      const run = live.get(runId)
      if (run) run.cancel(mode)
      else if (record.status === 'running') await sendRemote(runId, { kind: 'cancel', mode })
      return record
    },
    async answerPermission(tenant: string, runId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
      const record = await get(tenant, runId)
      const run = live.get(runId)
      const applied = run
        ? run.answerPermission(requestId, answer)
        : record.status === 'running' && (await sendRemote(runId, { kind: 'answer', requestId, answer }))
      if (!applied) {
        throw new ApiError('permission_request_not_found', `No open permission request ${requestId} in run ${runId}`)
      }
    },
    /**
     * Every event after `afterSeq`, then each new one; 404 for another tenant's run. `onEnd` is
     * called when the run is over and this subscriber will get nothing more: it already had
     * run.completed (a reconnect with `after` at the end), or `after` lies past the run's end.
     */
    async subscribe(
      tenant: string,
      runId: string,
      afterSeq: number,
      listener: (event: RunEvent) => void,
      onEnd?: () => void,
    ) {
      await get(tenant, runId)
      let ended = false
      let seen = false
      const end = () => {
        if (ended) return
        ended = true
        onEnd?.()
      }
      // From one before `afterSeq`, so a run.completed at exactly `afterSeq` is seen (and not delivered).
      const stop = await stores.events.subscribe(runId, Math.max(0, afterSeq - 1), (event) => {
        seen = true
        if (event.seq > afterSeq) listener(event)
        else if (event.type === 'run.completed') end()
      })
      // Nothing at or after `afterSeq` yet: either the run goes on, or `after` is past its end.
      if (!seen && afterSeq > 0) {
        const last = (await stores.events.read(runId, 0)).at(-1)
        if (last?.type === 'run.completed' && last.seq < afterSeq) end()
      }
      return stop
    },
    onEvent(observer: (event: RunEvent, tenant: string) => void): () => void {
      observers.add(observer)
      return () => observers.delete(observer)
    },
    get activeCount() {
      return live.size
    },
    get shuttingDown() {
      return shuttingDown
    },
    /** Idempotent: every caller waits for the same drain. */
    shutdown(graceMs: number): Promise<void> {
      drained ??= drain(graceMs)
      return drained
    },
  }
}

export type RunManager = ReturnType<typeof createRunManager>
