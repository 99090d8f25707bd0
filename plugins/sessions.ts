import fp from 'fastify-plugin'
import { Gauge } from 'prom-client'
import { createSessionService } from '../src/sessions/session-service.js'
import { tenantWorkspace } from '../src/sessions/tenant-workspace.js'
import type { ToolEnvironment } from '../src/tool/tool.js'
import { commandEnvironment } from '../src/tools/bash/run-shell-command.js'

declare module 'fastify' {
  interface FastifyInstance {
    sessions: ReturnType<typeof createSessionService>
  }
}

/** Sessions confined to each tenant's workspace, with the operator's rules laid over them. */
export const sessionsPlugin = fp(
  async (app) => {
    const { workspace, apiKeys, tenantCount, sessionIdleTtlMs } = app.config
    const authEnabled = apiKeys.length > 0
    const multiTenant = tenantCount > 1
    // Taken once at start: the operator's passthrough names, never the rest (docs/adr/0101-bash-environment.md).
    const bashEnvironment = commandEnvironment(process.env, app.config.bashEnvPassthrough)
    // A tenant's environment is fixed at start (tenants come from the configured keys): built once
    // rather than on each run's two context reads (docs/adr/0492).
    const environments = new Map<string, ToolEnvironment>()
    const sessions = createSessionService({
      store: app.stores.sessions,
      blobs: app.blobStore,
      operator: app.settings.permissions,
      workspaceOf: (tenant) => tenantWorkspace(workspace, tenant, authEnabled),
      environmentOf: (tenant) => {
        let environment = environments.get(tenant)
        if (!environment) {
          environment = {
            sandbox: app.sandbox.sandbox,
            containment: app.sandbox.containment,
            multiTenant,
            blobDirectory: app.blobStore.directory(tenant),
            commandEnvironment: bashEnvironment,
            workspaceRoot: tenantWorkspace(workspace, tenant, authEnabled),
          }
          environments.set(tenant, environment)
        }
        return environment
      },
      idleTtlMs: sessionIdleTtlMs,
      limits: app.config.sessionLimits,
    })
    app.decorate('sessions', sessions)
    new Gauge({
      name: 'toolexec_sessions_open',
      help: 'Sessions open (with Redis: created across the instances within the idle TTL)',
      registers: [app.metrics.registry],
      async collect() {
        this.set((await app.stores.sessions.count('', Date.now())).total)
      },
    })
  },
  { name: 'sessions', dependencies: ['config', 'metrics', 'settings', 'sandbox', 'stores', 'blob-store'] },
)
