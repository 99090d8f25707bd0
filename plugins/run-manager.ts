import type { FastifyInstance, onRequestHookHandler } from 'fastify'
import fp from 'fastify-plugin'
import { decisionSourceOf } from '../src/audit/decision-source.js'
import { isApiError } from '../src/errors/api-error.js'
import { createRunExecutor } from '../src/executor/run-executor.js'
import type { RunExecutor, RunExecutorOptions } from '../src/executor/run-executor-types.js'
import { createHookRunner } from '../src/hooks/create-hook-runner.js'
import { createPermissionGate } from '../src/permissions/create-permission-gate.js'
import { observeDecisions } from '../src/permissions/observe-decisions.js'
import { setRuleMatchWorkLimit } from '../src/permissions/rule-match-work.js'
import { createAdmission, REFUSAL_PACE_MS, RETRY_AFTER_SECONDS } from '../src/runs/capacity/admission.js'
import { type AdmissionTurns, createAdmissionTurns } from '../src/runs/capacity/admission-turns.js'
import { createRefusalLog, type RefusalLog } from '../src/runs/capacity/refusal-log.js'
import { createRefusalPacer, type RefusalPacer } from '../src/runs/capacity/refusal-pacer.js'
import { createRunManager } from '../src/runs/run-manager.js'
import { setMaxParsedCommandChars } from '../src/shell/parse-limit.js'

declare module 'fastify' {
  interface FastifyInstance {
    runManager: ReturnType<typeof createRunManager>
    /** Caps on open runs and calls in flight (docs/adr/0120-admission-control.md). */
    admission: ReturnType<typeof createAdmission>
    /** When the refusals for capacity are answered (docs/adr/0360, 0361) and how they are logged (0362). */
    refusals: { pacer: RefusalPacer; log: RefusalLog }
    /** How many new runs begin admission per turn of the event loop (docs/adr/0583). */
    admissionTurns: AdmissionTurns
  }
}

export type RunManagerPluginOptions = {
  /** Replaces the executor (tests count or slow what it runs); default `createRunExecutor`. */
  createExecutor?: ((options: RunExecutorOptions) => RunExecutor) | undefined
}

/**
 * The run manager, with the settings file's hooks and the permission gate. On close it drains:
 * no new runs, running ones get TOOLEXEC_SHUTDOWN_GRACE_MS to finish, then the rest are
 * cancelled (every call still gets a result) before sockets close.
 */
export const runManagerPlugin = fp<RunManagerPluginOptions>(
  async (app, options) => {
    const { config } = app
    const admission = createAdmission(config.admission)
    // One bound for every judgement of this process (src/permissions/rule-match-work.ts).
    setRuleMatchWorkLimit(config.maxRuleMatchWork)
    setMaxParsedCommandChars(config.maxParsedCommandChars)
    const runManager = createRunManager({
      stores: app.stores,
      sessions: app.sessions,
      toolsFor: (context) => app.toolPool.toolsFor(context),
      createExecutor: options.createExecutor ?? createRunExecutor,
      permissionGateFor: ({ prompter, timeoutMs }) =>
        observeDecisions(
          // bubblewrap runs a command without network; the other containments share the host's.
          createPermissionGate({
            prompter,
            timeoutMs: timeoutMs ?? 0,
            shellNetwork: app.sandbox.containment !== 'bwrap',
          }),
          (request, decision) => {
            const { context } = request
            app.audit.record({
              kind: 'decision',
              tenant: context.tenant,
              session_id: context.sessionId,
              run_id: context.runId,
              tool_use_id: context.toolUseId,
              tool: request.tool.name,
              input: request.input,
              decision: decision.behavior,
              source: decisionSourceOf(decision.decisionReason),
            })
            if (decision.behavior !== 'deny') return
            const { runId, toolUseId } = request.context
            const reason = decision.message
            app.log.info({ runId, toolUseId, tool: request.tool.name, reason }, 'permission denied')
            app.metrics.denied(request.tool.name)
          },
        ),
      hooks: createHookRunner(app.settings.hooks, {
        logger: app.log,
        onFailure: (event) => app.metrics.hookFailed(event),
        resolveSecret: (name) => app.secrets.resolve(name),
      }),
      admission,
      limits: {
        maxToolUseConcurrency: config.maxToolUseConcurrency,
        maxResultChars: config.maxResultChars,
        permissionTimeoutMs: config.permissionTimeoutMs,
        maxPermissionTimeoutMs: config.maxPermissionTimeoutMs,
        runTtlMs: config.runTtlMs,
      },
      logger: app.log,
      ...(app.coordination ? { coordination: app.coordination } : {}),
      onCallFinished: (call, run) =>
        app.audit.record({
          kind: 'call',
          tenant: run.tenant,
          session_id: run.sessionId,
          run_id: run.runId,
          tool_use_id: call.toolUseId,
          tool: call.tool,
          input: call.input,
          outcome: call.outcome,
          duration_ms: call.durationMs,
        }),
    })
    app.decorate('runManager', runManager)
    app.decorate('admission', admission)
    app.decorate('admissionTurns', createAdmissionTurns({ perTurn: ADMISSIONS_PER_TURN }))
    app.decorate('refusals', {
      pacer: createRefusalPacer({
        paceMs: REFUSAL_PACE_MS,
        retryAfterMs: RETRY_AFTER_SECONDS * 1000,
        perTurn: REFUSALS_PER_TURN,
      }),
      log: createRefusalLog({
        everyMs: REFUSAL_LOG_EVERY_MS,
        write: (refused) => app.log.info({ refused }, 'runs refused for capacity'),
      }),
    })
    app.addHook('onClose', async () => app.refusals.log.flush())
    app.addHook('preClose', async () => {
      if (runManager.activeCount > 0) app.log.info({ runs: runManager.activeCount }, 'draining runs before shutdown')
      await runManager.shutdown(config.shutdownGraceMs)
    })
  },
  {
    name: 'run-manager',
    dependencies: ['config', 'settings', 'sandbox', 'stores', 'audit', 'sessions', 'tool-pool', 'metrics', 'secrets'],
  },
)

/**
 * Refusals answered in one turn of the event loop: a flood's refusals come due together, and
 * `/healthz` waits for every one answered in the same turn (docs/adr/0361).
 */
const REFUSALS_PER_TURN = 16

/**
 * New runs that begin admission in one turn of the event loop: a burst's runs go in slices, with
 * the loop's other I/O between them (docs/adr/0583).
 */
const ADMISSIONS_PER_TURN = 16

/** One summary line of capacity refusals at most this often (docs/adr/0362). */
const REFUSAL_LOG_EVERY_MS = 10_000

/** Levels at which a refused request's own lines would be written (docs/adr/0362). */
const BELOW_WARN: ReadonlySet<string> = new Set(['trace', 'debug', 'info'])

/**
 * The onRequest hook of the routes that start runs. After auth (route hooks run after the app's):
 * a full instance or tenant is refused before the body is read and validated, and the refusal is
 * paced (docs/adr/0182-capacity-refusals-are-paced.md): a connection that asks again before its
 * last refusal's Retry-After is over waits for it (docs/adr/0360). A retry with an Idempotency-Key
 * may be a replay, which is answered whatever the load (docs/adr/0163-refused-before-the-body-is-read.md).
 */
export function admissionHook(app: FastifyInstance): onRequestHookHandler {
  return (request, _reply, done) => {
    if (request.headers['idempotency-key'] !== undefined) return done()
    // Checked when its slice goes, so the runs of the slices before it are counted (docs/adr/0583).
    app.admissionTurns.pass(() => {
      try {
        app.admission.refuseNewRun(request.tenant)
      } catch (error) {
        // The refusal is counted into the summary line instead of logged per request: its own
        // info lines (the error handler's, fastify's "request completed") are not written.
        if (isApiError(error)) app.refusals.log.note(error.code)
        if (BELOW_WARN.has(request.log.level)) request.log.level = 'warn'
        app.refusals.pacer.pace(request.raw.socket, () => done(error as Error))
        return
      }
      done()
    })
  }
}
