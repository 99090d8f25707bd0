import type { FastifyBaseLogger } from 'fastify'
import fp from 'fastify-plugin'
import { type BashAvailability, detectBashAvailability } from '../src/tools/bash/bash-availability.js'
import { type Containment, detectContainment } from '../src/tools/bash/containment.js'
import { commandLauncher } from '../src/tools/bash/launch-command.js'
import { prepareSystemMounts } from '../src/tools/bash/sandbox.js'
import { warmSandboxes } from '../src/tools/bash/warm-sandboxes.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** What Bash runs in, and whether it is offered at all (docs/adr/0067-plugins-read-settings-and-sandbox-from-decorators.md). */
    sandbox: BashAvailability & { containment: Containment; containmentReason: string }
  }
}

/** The sandbox probe, run once at start: sessions read what Bash runs in, the tool pool whether it exists. */
export const sandboxPlugin = fp(
  async (app) => {
    const availability = detectBashAvailability({ mode: app.config.sandbox, tenantCount: app.config.tenantCount })
    const { containment, reason: containmentReason } = detectContainment(availability.sandbox)
    if (!availability.enabled) {
      app.log.warn(
        { reason: availability.reason },
        'Bash is disabled for tenants: no usable sandbox with several tenants',
      )
    } else {
      app.log.info(
        { sandbox: availability.sandbox, reason: availability.reason, containment, containmentReason },
        'sandbox',
      )
    }
    // Without bubblewrap, what keeps a command's processes from outliving it (docs/adr/0123-containment-without-bubblewrap.md).
    if (containment === 'process-group') app.log.warn({ reason: containmentReason }, 'weak process containment')
    // Grep's searches start through the launcher too, with or without Bash.
    await commandLauncher.configure(app.config.processes)
    if (availability.enabled) {
      const stopListening = await startLauncher(app.log)
      // Each app of a process (tests build many) listens only while it lives.
      app.addHook('onClose', async () => stopListening())
    }
    // The sandbox's /etc copy is made before the service listens (docs/adr/0387).
    if (availability.enabled && availability.sandbox === 'bwrap') prepareSystemMounts()
    // Sandboxes ahead of demand only where Bash runs in bubblewrap (docs/adr/0390-warm-sandboxes.md).
    const warm = availability.enabled && availability.sandbox === 'bwrap'
    warmSandboxes.configure(warm ? app.config.warmSandboxes : { ...app.config.warmSandboxes, perSession: 0 })
    app.addHook('onClose', async () => warmSandboxes.discardAll())
    app.decorate('sandbox', { ...availability, containment, containmentReason })
  },
  { name: 'sandbox', dependencies: ['config'] },
)

/**
 * The spawner process that forks Bash commands off the event loop, started now rather than at the
 * first command; the start log says whether it or in-process spawning is in force
 * (docs/adr/0160-a-spawner-process-forks-bash.md), and at which priority and pace.
 */
async function startLauncher(log: FastifyBaseLogger): Promise<() => void> {
  const state = await commandLauncher.start()
  // What is in force for the commands' CPU priority and start pacing (docs/adr/0300, 0301).
  const { starting: _starting, queued: _queued, ...processes } = commandLauncher.processes()
  // The Node spawner where the native one was wanted (docs/adr/0501): it works, at more CPU a start.
  if (state.mode === 'spawner' && state.reason !== undefined)
    log.warn({ spawner: state, processes }, 'bash spawner process')
  else if (state.mode === 'spawner') log.info({ spawner: state, processes }, 'bash spawner process')
  else log.warn({ spawner: state, processes }, 'bash spawner unavailable: commands are forked in-process')
  return commandLauncher.onChange(({ state: next, event, reason }) =>
    log.warn({ spawner: next, reason }, event === 'restarted' ? 'bash spawner restarted' : 'bash spawner given up'),
  )
}
