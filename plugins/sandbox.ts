import fp from 'fastify-plugin'
import { type BashAvailability, detectBashAvailability } from '../src/tools/bash/bash-availability.js'
import { type Containment, detectContainment } from '../src/tools/bash/containment.js'

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
    app.decorate('sandbox', { ...availability, containment, containmentReason })
  },
  { name: 'sandbox', dependencies: ['config'] },
)
