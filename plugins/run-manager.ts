import fp from 'fastify-plugin'
import type { HookRunner } from '../src/executor/hook-runner.js'
import type { RunExecutor, RunExecutorOptions } from '../src/executor/run-executor-types.js'
import type { PermissionGateFactory } from '../src/runs/live-run.js'
import { createRunManager } from '../src/runs/run-manager.js'

declare module 'fastify' {
  interface FastifyInstance {
    runManager: ReturnType<typeof createRunManager>
  }
}

export type RunManagerPluginOptions = {
  createExecutor: (options: RunExecutorOptions) => RunExecutor
  permissionGateFor?: PermissionGateFactory
  hooks?: HookRunner
}

/**
 * The run manager. On close it drains: no new runs, running ones get TOOLEXEC_SHUTDOWN_GRACE_MS
 * to finish, then the rest are cancelled (every call still gets a result) before sockets close.
 */
export const runManagerPlugin = fp<RunManagerPluginOptions>(
  async (app, options) => {
    const { config } = app
    const runManager = createRunManager({
      stores: app.stores,
      sessions: app.sessions,
      toolsFor: (context) => app.toolPool.toolsFor(context),
      createExecutor: options.createExecutor,
      ...(options.permissionGateFor ? { permissionGateFor: options.permissionGateFor } : {}),
      ...(options.hooks ? { hooks: options.hooks } : {}),
      limits: {
        maxToolUseConcurrency: config.maxToolUseConcurrency,
        maxResultChars: config.maxResultChars,
        permissionTimeoutMs: config.permissionTimeoutMs,
        runTtlMs: config.runTtlMs,
      },
      logger: app.log,
    })
    app.decorate('runManager', runManager)
    app.addHook('preClose', async () => {
      if (runManager.activeCount > 0) app.log.info({ runs: runManager.activeCount }, 'draining runs before shutdown')
      await runManager.shutdown(config.shutdownGraceMs)
    })
  },
  { name: 'run-manager', dependencies: ['config', 'stores', 'sessions', 'tool-pool'] },
)
