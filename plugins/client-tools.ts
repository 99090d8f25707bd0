import { rm } from 'node:fs/promises'
import path from 'node:path'
import fp from 'fastify-plugin'
import type { Tools } from '../src/tool/tool.js'
import { warmSandboxes } from '../src/tools/bash/warm-sandboxes.js'
import { createClientBashTool } from '../src/tools/client-bash/client-bash-tool.js'
import { createShellRegistry } from '../src/tools/client-bash/shell-registry.js'
import { createShellStateFiles } from '../src/tools/client-bash/shell-state.js'
import { createMemoryTool } from '../src/tools/memory/memory-tool.js'
import { createTextEditorTool } from '../src/tools/text-editor/text-editor-tool.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The Messages API's client tools, for sessions that ask for the `anthropic_client` toolset. */
    clientTools: Tools
    /** Ends a deleted session's shell (and its process tree) and removes its memories, at once. */
    endClientToolState(tenant: string, sessionId: string): Promise<void>
  }
}

/** Session memories of sessions gone are looked for this often. */
const SWEEP_INTERVAL_MS = 60_000
/**
 * Shells of sessions gone, this often (at most TOOLEXEC_MAX_SHELLS lookups): a session deleted
 * through another instance ends its shell here within this (docs/adr/0237).
 */
const SHELL_SWEEP_INTERVAL_MS = 5_000

export type ClientToolsPluginOptions = {
  /** The client bash tool's per-command timeout (tests shorten it). */
  bashTimeoutMs?: number | undefined
  /** How often shells of sessions gone are looked for (tests lengthen it). */
  shellSweepIntervalMs?: number | undefined
}

/**
 * `bash`, the text editors and `memory` (docs/tools.md#the-messages-apis-client-tools). Owns the
 * per-session shells and memories: ended or removed when their session is deleted or expires,
 * and every shell ended at shutdown (docs/adr/0145-persistent-shell.md).
 */
export const clientToolsPlugin = fp<ClientToolsPluginOptions>(
  async (app, options) => {
    const { memoryDir, sessionIdleTtlMs } = app.config
    const settings = app.settings.clientTools ?? {}
    const sharedMemory = settings.memoryScope === 'tenant'
    const shells = createShellRegistry({
      idleTtlMs: sessionIdleTtlMs,
      maxShells: app.config.maxShells,
      maxShellsPerTenant: app.config.maxShellsPerTenant,
    })
    // Sessions with a directory under TOOLEXEC_MEMORY_DIR (memories, the saved shell state): removed with the session.
    const memorySessions = new Map<string, { tenant: string; sessionId: string }>()
    const tenantDirectory = (tenant: string) => path.join(memoryDir, encodeURIComponent(tenant))
    // On the volume every instance shares, so the session's next shell finds it wherever it starts (docs/adr/0270).
    const shellStates = createShellStateFiles((tenant, sessionId) => {
      memorySessions.set(`${tenant}\u0000${sessionId}`, { tenant, sessionId })
      return path.join(tenantDirectory(tenant), encodeURIComponent(sessionId))
    })
    const memoryTool = createMemoryTool(({ tenant, sessionId }) => {
      if (sharedMemory) return path.join(tenantDirectory(tenant), '_tenant', 'memories')
      memorySessions.set(`${tenant}\u0000${sessionId}`, { tenant, sessionId })
      return path.join(tenantDirectory(tenant), encodeURIComponent(sessionId), 'memories')
    })
    const maxCharacters = settings.textEditorMaxCharacters
    const tools: Tools = [
      // Without a usable sandbox for several tenants, bash is left out like Bash.
      ...(app.sandbox.enabled
        ? [createClientBashTool({ shells, states: shellStates, timeoutMs: options.bashTimeoutMs })]
        : []),
      // Every version; the pool offers a session one of them (docs/adr/0289).
      createTextEditorTool({ type: 'text_editor_20250728', ...(maxCharacters ? { maxCharacters } : {}) }),
      createTextEditorTool({ type: 'text_editor_20250429' }),
      createTextEditorTool({ type: 'text_editor_20250124' }),
      memoryTool,
    ]
    const exists = (tenant: string, sessionId: string) =>
      app.sessions.get(tenant, sessionId).then(
        () => true,
        () => false,
      )
    const sweep = async () => {
      for (const [key, { tenant, sessionId }] of [...memorySessions]) {
        if (await exists(tenant, sessionId)) continue
        memorySessions.delete(key)
        await rm(path.join(tenantDirectory(tenant), encodeURIComponent(sessionId)), { recursive: true, force: true })
      }
    }
    const timer = setInterval(
      () => void sweep().catch((error) => app.log.warn({ err: error }, 'client tools sweep')),
      SWEEP_INTERVAL_MS,
    )
    timer.unref()
    const shellTimer = setInterval(
      () => void shells.sweep(exists).catch((error) => app.log.warn({ err: error }, 'client shells sweep')),
      options.shellSweepIntervalMs ?? SHELL_SWEEP_INTERVAL_MS,
    )
    shellTimer.unref()
    // A session deleted through any instance ends its shell here at once (docs/adr/0237).
    const stopListening = app.coordination?.onAnnouncement((message) => {
      const deleted = message as { type?: unknown; tenant?: unknown; sessionId?: unknown }
      if (deleted.type !== 'session.deleted' || typeof deleted.tenant !== 'string') return
      if (typeof deleted.sessionId !== 'string') return
      void shells.end(deleted.tenant, deleted.sessionId).catch(() => undefined)
      warmSandboxes.discardSession({ tenant: deleted.tenant, sessionId: deleted.sessionId })
    })
    app.addHook('onClose', async () => {
      clearInterval(timer)
      clearInterval(shellTimer)
      stopListening?.()
      await shells.closeAll()
    })
    app.decorate('clientTools', tools)
    app.decorate('endClientToolState', async (tenant: string, sessionId: string) => {
      await shells.end(tenant, sessionId)
      // Its warm sandboxes go too (docs/adr/0390-warm-sandboxes.md).
      warmSandboxes.discardSession({ tenant, sessionId })
      // Its shell may live on another instance: every instance is told.
      await app.coordination?.announce({ type: 'session.deleted', tenant, sessionId }).catch(() => undefined)
      memorySessions.delete(`${tenant}\u0000${sessionId}`)
      await rm(path.join(tenantDirectory(tenant), encodeURIComponent(sessionId)), { recursive: true, force: true })
    })
  },
  { name: 'client-tools', dependencies: ['config', 'stores', 'settings', 'sandbox', 'sessions'] },
)
