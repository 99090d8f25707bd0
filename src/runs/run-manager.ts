import { type Caller, requireCapability } from '../auth/capability.js'
import { ApiError } from '../errors/api-error.js'
import type { RunEvent } from '../events/run-event.js'
import type { HookRunner } from '../executor/hook-runner.js'
import { ALLOW_ALL } from '../executor/permission-gate.js'
import type { RunExecutor, RunExecutorOptions } from '../executor/run-executor-types.js'
import type { CancelMode } from '../executor/run-options.js'
import type { SessionContext } from '../executor/session-context.js'
import type { Logger } from '../logging/logger.js'
import type { SessionService } from '../sessions/session-service.js'
import type { RunCoordination } from '../stores/run-coordination.js'
import type { OpenAsk, RunRecord } from '../stores/run-store.js'
import type { Stores } from '../stores/stores.js'
import type { Tools } from '../tool/tool.js'
import type { Admission } from './capacity/admission.js'
import type { PermissionAnswer } from './control/permission-broker.js'
import { createRunControl } from './control/run-control.js'
import { drainRuns } from './drain-runs.js'
import type { LiveRun, LiveRunDependencies, PermissionGateFactory } from './live-run.js'
import { createRunResumer } from './lost/resume-run.js'
import type { OperatorLimits } from './run-request.js'
import { createRunStarter, type RunStarterOptions } from './start-run.js'
import { subscribeToRun } from './subscribe-to-run.js'

export type { StartRunRequest } from './run-request.js'
export type { RunHandle } from './start-run.js'

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
  limits: OperatorLimits & { runTtlMs: number }
  logger?: Logger
  now?: () => number
  /** Other instances on the same shared store (docs/adr/0111-run-leases.md); absent in memory mode. */
  coordination?: RunCoordination
  /** Each call once it has its outcome (the audit trail, docs/audit.md). */
  onCallFinished?: LiveRunDependencies['onCallFinished']
}

/** How far past its deadline a run must be to count as stuck: a cancel takes a moment to land. */
const STUCK_GRACE_MS = 5000

/**
 * Runs as the API sees them: one verb each, the work in the file named after it (start-run,
 * subscribe-to-run, drain-runs; docs/adr/0190-run-core-cut-along-its-lifecycle.md). Holds only
 * what the verbs share: the runs executing here and the event observers.
 */
export function createRunManager(options: RunManagerOptions) {
  const { stores, coordination } = options
  const live = new Map<string, LiveRun>()
  const observers = new Set<(event: RunEvent, tenant: string) => void>()
  let shuttingDown = false
  /** Open asks of the runs executing here, for /readyz and the metrics. */
  const openAsks = new Map<string, readonly OpenAsk[]>()
  let drained: Promise<void> | undefined

  const starterOptions: RunStarterOptions = {
    stores,
    sessions: options.sessions,
    toolsFor: options.toolsFor,
    launch: {
      stores,
      sessions: options.sessions,
      createExecutor: options.createExecutor,
      permissionGateFor: options.permissionGateFor ?? (() => ALLOW_ALL),
      ...(options.hooks ? { hooks: options.hooks } : {}),
      runTtlMs: options.limits.runTtlMs,
      keepsHeldResults: coordination !== undefined,
      ...(options.onCallFinished ? { onCallFinished: options.onCallFinished } : {}),
      now: options.now ?? Date.now,
      onOpenAsks: (runId, asks) => {
        if (asks.length === 0) openAsks.delete(runId)
        else openAsks.set(runId, asks)
      },
      observe: (event, tenant) => {
        for (const observer of observers) observer(event, tenant)
      },
    },
    admission: options.admission,
    limits: options.limits,
    logger: options.logger,
    coordination,
    live,
    shuttingDown: () => shuttingDown,
  }
  const start = createRunStarter(starterOptions)
  const takeOver = createRunResumer(starterOptions)

  async function get(tenant: string, runId: string): Promise<RunRecord> {
    const record = await stores.runs.get(tenant, runId)
    if (!record) throw new ApiError('run_not_found', `No run ${runId}`)
    return record
  }

  const control = createRunControl(live, coordination, stores)

  return {
    start,
    /** A run whose instance was lost, taken over here when calls are left to run (docs/adr/0243). */
    takeOver,
    get,
    async cancel(tenant: string, runId: string, mode: CancelMode = 'cancel'): Promise<RunRecord> {
      const record = await get(tenant, runId)
      await control.cancel(record, mode)
      return record
    },
    /** Answers an ask; only keys that may approve (docs/adr/0240-key-roles.md), named in the answer. */
    async answerPermission(caller: Caller, runId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
      requireCapability(caller, 'approve')
      await control.answer(await get(caller.tenant, runId), requestId, { ...answer, by: caller.keyName })
    },
    /** `subscribeToRun` for the tenant's own run (404 for another tenant's). */
    async subscribe(
      tenant: string,
      runId: string,
      afterSeq: number,
      listener: (event: RunEvent) => void,
      onEnd?: () => void,
    ) {
      await get(tenant, runId)
      return subscribeToRun(stores.events, runId, afterSeq, listener, onEnd)
    },
    onEvent(observer: (event: RunEvent, tenant: string) => void): () => void {
      observers.add(observer)
      return () => observers.delete(observer)
    },
    get activeCount() {
      return live.size
    },
    /**
     * What waits here: asks open and the oldest one's age, and the runs still going past their
     * own deadline (`timeout_ms`) by more than a grace: stuck is not healthy.
     */
    waiting(now: number) {
      let asks = 0
      let oldest: number | undefined
      for (const list of openAsks.values()) {
        asks += list.length
        for (const ask of list) {
          const opened = Date.parse(ask.opened_at)
          if (oldest === undefined || opened < oldest) oldest = opened
        }
      }
      const stuck = [...live.values()]
        .filter((run) => run.deadline !== undefined && now > run.deadline + STUCK_GRACE_MS)
        .map((run) => run.runId)
      return { asks, oldestAskAgeMs: oldest === undefined ? 0 : now - oldest, stuckRuns: stuck }
    },
    get shuttingDown() {
      return shuttingDown
    },
    /** Takes no new runs, then drains; idempotent: every caller waits for the same drain. */
    shutdown(graceMs: number): Promise<void> {
      shuttingDown = true
      drained ??= drainRuns(live, graceMs)
      return drained
    },
  }
}

export type RunManager = ReturnType<typeof createRunManager>
