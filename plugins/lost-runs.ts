import fp from 'fastify-plugin'
import { closeLostRun } from '../src/runs/lost/close-lost-run.js'

/**
 * With Redis: every half lease, look for runs whose instance stopped renewing its lease and
 * close them honestly (docs/adr/0111-run-leases.md, docs/adr/0112-what-a-lost-run-says.md).
 */
export const lostRunsPlugin = fp(
  async (app) => {
    const { coordination, stores, config } = app
    if (!coordination) return
    let busy = false
    const logTakeoverFailure = (error: unknown, runId: string) => {
      app.log.error({ err: error, runId }, 'taking over a lost run failed: it is closed instead')
      return false
    }
    const look = async () => {
      if (busy || !coordination.available()) return
      busy = true
      try {
        for (const run of await coordination.claimLostRuns()) {
          // Calls left to run (waiting for an answer, or not started) go on here (docs/adr/0243).
          if (await app.runManager.takeOver(run).catch((error: unknown) => logTakeoverFailure(error, run.runId)))
            continue
          const closed = await closeLostRun(stores, run, {
            runTtlMs: config.runTtlMs,
            now: Date.now,
            onLost: (call) =>
              app.audit.record({
                kind: 'call',
                tenant: run.tenant,
                session_id: call.sessionId,
                run_id: run.runId,
                tool_use_id: call.toolUseId,
                tool: call.tool,
                input: call.input,
                outcome: 'lost',
                duration_ms: 0,
              }),
          })
          await coordination.forget(run.runId)
          if (closed) app.log.warn({ runId: run.runId }, 'closed a run whose instance was lost')
        }
      } catch (error) {
        app.log.error({ err: error }, 'closing lost runs failed')
      } finally {
        busy = false
      }
    }
    const timer = setInterval(() => void look(), Math.max(50, Math.floor(config.instanceLeaseMs / 2)))
    timer.unref()
    app.addHook('onClose', async () => clearInterval(timer))
  },
  { name: 'lost-runs', dependencies: ['config', 'stores', 'audit', 'run-manager'] },
)
