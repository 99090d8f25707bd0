import fp from 'fastify-plugin'
import type { PermissionGate, PermissionRequest } from '../src/executor/permission-gate.js'
import { createRunExecutor } from '../src/executor/run-executor.js'
import type { RunExecutor, RunExecutorOptions } from '../src/executor/run-executor-types.js'
import { createHookRunner } from '../src/hooks/create-hook-runner.js'
import { createPermissionGate } from '../src/permissions/create-permission-gate.js'
import { createAdmission } from '../src/runs/capacity/admission.js'
import { createRunManager } from '../src/runs/run-manager.js'

declare module 'fastify' {
  interface FastifyInstance {
    runManager: ReturnType<typeof createRunManager>
    /** Caps on open runs and calls in flight (docs/adr/0120-admission-control.md). */
    admission: ReturnType<typeof createAdmission>
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
    const runManager = createRunManager({
      stores: app.stores,
      sessions: app.sessions,
      toolsFor: (context) => app.toolPool.toolsFor(context),
      createExecutor: options.createExecutor ?? createRunExecutor,
      permissionGateFor: ({ prompter, timeoutMs }) =>
        reportDenials(createPermissionGate({ prompter, timeoutMs: timeoutMs ?? 0 }), (request, reason) => {
          const { runId, toolUseId } = request.context
          app.log.info({ runId, toolUseId, tool: request.tool.name, reason }, 'permission denied')
          app.metrics.denied(request.tool.name)
        }),
      hooks: createHookRunner(app.settings.hooks, {
        logger: app.log,
        onFailure: (event) => app.metrics.hookFailed(event),
      }),
      admission,
      limits: {
        maxToolUseConcurrency: config.maxToolUseConcurrency,
        maxResultChars: config.maxResultChars,
        permissionTimeoutMs: config.permissionTimeoutMs,
        runTtlMs: config.runTtlMs,
      },
      logger: app.log,
      ...(app.coordination ? { coordination: app.coordination } : {}),
    })
    app.decorate('runManager', runManager)
    app.decorate('admission', admission)
    app.addHook('preClose', async () => {
      if (runManager.activeCount > 0) app.log.info({ runs: runManager.activeCount }, 'draining runs before shutdown')
      await runManager.shutdown(config.shutdownGraceMs)
    })
  },
  { name: 'run-manager', dependencies: ['config', 'settings', 'stores', 'sessions', 'tool-pool', 'metrics'] },
)

/** The same gate, telling `onDeny` of every denial and its reason (the text the model gets). */
function reportDenials(
  gate: PermissionGate,
  onDeny: (request: PermissionRequest, reason: string) => void,
): PermissionGate {
  return {
    decide: async (request) => {
      const decision = await gate.decide(request)
      if (decision.behavior === 'deny') onDeny(request, decision.message)
      return decision
    },
  }
}
