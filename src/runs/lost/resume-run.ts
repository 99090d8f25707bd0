import type { RunOptions } from '../../executor/run-options.js'
import { lazyChild } from '../../logging/lazy-child.js'
import { SILENT_LOGGER } from '../../logging/logger.js'
import type { HeldRun } from '../../stores/run-coordination.js'
import { admittedRun } from '../admitted-run.js'
import type { PermissionAnswer } from '../control/permission-broker.js'
import { applyRemoteControl } from '../control/remote-control.js'
import { launchRun } from '../live-run.js'
import type { RunStarterOptions } from '../start-run.js'
import { planTakeover } from './plan-takeover.js'

/**
 * Takes over a run whose instance was lost while some of its calls had not run yet — most often
 * because they wait for a person (docs/adr/0243-taking-over-a-waiting-run.md). The run goes on
 * here under its own id: its asks keep their request ids and deadlines, answers given while no
 * instance held it are applied, and every block still gets exactly one result, in block order.
 * False: there is nothing left to run (or nothing to run it with); the caller closes it as lost.
 */
export function createRunResumer(options: RunStarterOptions) {
  const { stores, sessions, coordination, live } = options
  const baseLogger = options.logger ?? SILENT_LOGGER

  return async function takeOver(held: HeldRun): Promise<boolean> {
    if (!coordination || options.shuttingDown()) return false
    const plan = await planTakeover(stores, held)
    if (!plan || plan.rerun === 0) return false
    const { record, resume } = plan
    const { runId, tenant } = record
    const session = await sessions.get(tenant, record.sessionId).catch(() => undefined)
    if (session?.activeRunId !== runId) return false
    const given = new Set(plan.priorResults.map((result) => result.tool_use_id))
    const blocks = resume.blocks.filter((block) => !given.has(block.id))
    // Admitted whatever the load: the run was admitted once, and refusing it now would lose it.
    const ticket = options.admission?.admit(tenant, blocks.length, { force: true })
    const releaseHold = await coordination.hold({ runId, tenant }, (message) =>
      applyRemoteControl(live.get(runId), message),
    )
    const logger = lazyChild(baseLogger, { runId, sessionId: session.sessionId })
    const admitted = admittedRun(options.launch, ticket, { live, hold: releaseHold, logger })
    try {
      const run = await launchRun(admitted.dependencies, {
        runId,
        session,
        mode: record.mode,
        tools: await options.toolsFor(sessions.contextFor(session)),
        blocks,
        refusals: new Map(resume.refusals),
        parentMessage: resume.parentMessage,
        runOptions: resume.runOptions as RunOptions,
        permissionTimeoutMs: resume.permissionTimeoutMs,
        ...(record.idempotencyKey === undefined ? {} : { idempotencyKey: record.idempotencyKey }),
        ephemeralSession: resume.ephemeralSession,
        logger,
        ...admitted.asks,
        resumed: {
          record,
          priorResults: plan.priorResults,
          settled: plan.settled,
          adoptedAsks: plan.adoptedAsks,
        },
      })
      admitted.track(run)
      logger.warn({ rerun: plan.rerun, settled: plan.settled.size }, 'took over a run whose instance was lost')
    } catch (error) {
      ticket?.release()
      await releaseHold()
      throw error
    }
    // The run is live here now: whatever happens below, it is not closed as lost.
    // Answers given while no instance held the run; later ones arrive over the control channel.
    const run = live.get(runId)
    const stored = await stores.runs.storedAnswers(runId).catch((error: unknown) => {
      logger.error({ err: error }, 'reading the answers kept for a run taken over failed: its asks wait on')
      return new Map<string, unknown>()
    })
    for (const [requestId, answer] of stored) run?.answerPermission(requestId, answer as PermissionAnswer)
    return true
  }
}
