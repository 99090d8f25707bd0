import fp from 'fastify-plugin'
import { detectBashAvailability } from '../src/tools/bash/bash-availability.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** What Bash runs in, and whether it is offered at all (docs/adr/0067-plugins-read-settings-and-sandbox-from-decorators.md). */
    sandbox: ReturnType<typeof detectBashAvailability>
  }
}

/** The sandbox probe, run once at start: sessions read what Bash runs in, the tool pool whether it exists. */
export const sandboxPlugin = fp(
  async (app) => {
    const availability = detectBashAvailability({ mode: app.config.sandbox, tenantCount: app.config.tenantCount })
    if (!availability.enabled) {
      app.log.warn(
        { reason: availability.reason },
        'Bash is disabled for tenants: no usable sandbox with several tenants',
      )
    } else app.log.info({ sandbox: availability.sandbox, reason: availability.reason }, 'sandbox')
    app.decorate('sandbox', availability)
  },
  { name: 'sandbox', dependencies: ['config'] },
)
