import fp from 'fastify-plugin'
import type { PermissionsSettings } from '../src/permissions/permissions-settings-schema.js'
import { createSessionService } from '../src/sessions/session-service.js'
import { tenantWorkspace } from '../src/sessions/tenant-workspace.js'

declare module 'fastify' {
  interface FastifyInstance {
    sessions: ReturnType<typeof createSessionService>
  }
}

export type SessionsPluginOptions = {
  operator: PermissionsSettings | undefined
  /** What Bash runs in (from the sandbox probe at start). */
  sandbox: 'bwrap' | 'off'
}

/** Sessions confined to each tenant's workspace, with the operator's rules laid over them. */
export const sessionsPlugin = fp<SessionsPluginOptions>(
  async (app, options) => {
    const { workspace, apiKeys, sessionIdleTtlMs } = app.config
    const authEnabled = apiKeys.length > 0
    const multiTenant = new Set(apiKeys.map((key) => key.tenant)).size > 1
    const sessions = createSessionService({
      store: app.stores.sessions,
      blobs: app.blobStore,
      operator: options.operator,
      workspaceOf: (tenant) => tenantWorkspace(workspace, tenant, authEnabled),
      environmentOf: (tenant) => ({
        sandbox: options.sandbox,
        multiTenant,
        blobDirectory: app.blobStore.directory(tenant),
      }),
      idleTtlMs: sessionIdleTtlMs,
    })
    app.decorate('sessions', sessions)
  },
  { name: 'sessions', dependencies: ['config', 'stores', 'blob-store'] },
)
