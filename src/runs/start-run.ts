import { randomUUID } from 'node:crypto'
import { deferred } from '../async/deferred.js'
import { ApiError } from '../errors/api-error.js'
import type { RunStatus } from '../events/run-event.js'
import type { SessionContext } from '../executor/session-context.js'
import { lazyChild } from '../logging/lazy-child.js'
import { type Logger, SILENT_LOGGER } from '../logging/logger.js'
import type { SessionService } from '../sessions/session-service.js'
import type { RunCoordination } from '../stores/run-coordination.js'
import type { RunRecord } from '../stores/run-store.js'
import type { SessionRecord } from '../stores/session-store.js'
import type { Stores } from '../stores/stores.js'
import type { Tools } from '../tool/tool.js'
import { admittedRun } from './admitted-run.js'
import type { Admission } from './capacity/admission.js'
import { applyRemoteControl } from './control/remote-control.js'
import { type LiveRun, type LiveRunDependencies, launchRun } from './live-run.js'
import { runElsewhere } from './lost/run-elsewhere.js'
import { type OperatorLimits, permissionTimeoutOf, runOptionsOf, type StartRunRequest } from './run-request.js'

/**
 * What `start` hands back: the run it started here (`live`), or the earlier run an
 * Idempotency-Key retry maps to (docs/adr/0133-idempotent-replayed-header.md). `status` is the
 * run's status now, what a 202 reports.
 */
export type RunHandle =
  | { kind: 'started'; runId: string; live: LiveRun; readonly status: RunStatus; finished: Promise<RunRecord> }
  | { kind: 'replayed'; runId: string; readonly status: RunStatus; finished: Promise<RunRecord> }

export type RunStarterOptions = {
  stores: Stores
  sessions: SessionService
  /** The tool pool a run's calls are looked up in, for the session context it starts from. */
  toolsFor: (context: SessionContext) => Tools | Promise<Tools>
  /** What every live run shares; `observe` sees each stored event. */
  launch: LiveRunDependencies
  admission?: Admission | undefined
  limits: OperatorLimits
  logger?: Logger | undefined
  coordination?: RunCoordination | undefined
  /** The runs executing here, shared with the facade (cancel, answer, drain). */
  live: Map<string, LiveRun>
  shuttingDown: () => boolean
}

/** Starting runs: the Idempotency-Key claim and replay, admission, lease and session, then the launch. */
export function createRunStarter(options: RunStarterOptions) {
  const { stores, sessions, coordination, live } = options
  const baseLogger = options.logger ?? SILENT_LOGGER
  /** Runs between their idempotency claim and their launch: a concurrent retry waits on these. */
  const starting = new Map<string, Promise<LiveRun>>()

  async function launch(request: StartRunRequest, runId: string): Promise<LiveRun> {
    if (options.shuttingDown()) throw new ApiError('shutting_down', 'The server is shutting down and takes no new runs')
    const { tenant } = request
    const ticket = options.admission?.admit(tenant, request.input.blocks.length)
    // Held before the run exists: its lease and control channel cover it from its first event.
    // The session is claimed meanwhile: on Redis both are round trips, and neither needs the other.
    const [holding, claiming] = await Promise.allSettled([
      coordination?.hold({ runId, tenant }, (message) => applyRemoteControl(live.get(runId), message)),
      claimSession(request, runId),
    ])
    if (holding.status === 'rejected' || claiming.status === 'rejected') {
      ticket?.release()
      if (holding.status === 'fulfilled') await holding.value?.()
      if (claiming.status === 'fulfilled') await endSession(request, claiming.value, runId)
      throw holding.status === 'rejected' ? holding.reason : (claiming as PromiseRejectedResult).reason
    }
    const releaseHold = holding.value
    const session = claiming.value
    const logger = lazyChild(request.logger ?? baseLogger, { runId, sessionId: session.sessionId })
    const admitted = admittedRun(options.launch, ticket, { live, hold: releaseHold, logger })
    try {
      const run = await launchRun(admitted.dependencies, {
        runId,
        session,
        mode: request.mode,
        tools: await options.toolsFor(sessions.contextFor(session)),
        ...request.input,
        runOptions: runOptionsOf(request.options, options.limits),
        permissionTimeoutMs: permissionTimeoutOf(request.mode, request.options, options.limits),
        ...(request.idempotency ? { idempotencyKey: request.idempotency.key } : {}),
        ephemeralSession: request.sessionId === undefined,
        logger,
        ...admitted.asks,
        ...(request.prompter ? { prompter: request.prompter } : {}),
      })
      admitted.track(run)
      logger.info({ mode: request.mode, blocks: request.input.blocks.length }, 'run started')
      return run
    } catch (error) {
      ticket?.release()
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
    if (run) return { kind: 'replayed', runId, finished: run.finished, ...statusOf(run) }
    if (coordination) return { kind: 'replayed', runId, ...(await runElsewhere(stores, tenant, runId)) }
    const record = await stores.runs.get(tenant, runId)
    if (!record) throw new ApiError('run_not_found', `Run ${runId} has expired`)
    return { kind: 'replayed', runId, status: record.status, finished: Promise.resolve(record) }
  }

  // The status as the run has it now (what a 202 reports), read once: spreading a getter copied
  // its value anyway, through the runtime's slow path (docs/adr/0492).
  const started = (run: LiveRun): RunHandle => ({
    kind: 'started',
    runId: run.runId,
    live: run,
    finished: run.finished,
    status: run.status,
  })

  return async function start(request: StartRunRequest): Promise<RunHandle> {
    if (coordination && !coordination.available()) {
      // Redis is usually back within seconds (docs/operations.md, "Redis unreachable").
      throw new ApiError(
        'store_unavailable',
        `New runs wait for the shared store: ${coordination.unavailableReason()}`,
        { retryAfterSeconds: 2 },
      )
    }
    const runId = `run_${randomUUID()}`
    if (!request.idempotency) return started(await launch(request, runId))
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
      return started(run)
    } catch (error) {
      launching.reject(error)
      throw error
    } finally {
      starting.delete(runId)
    }
  }
}

/** The live run's status as its stored record has it: running until its final record is written. */
const statusOf = (run: LiveRun) => ({
  get status(): RunStatus {
    return run.status
  },
})
