import fp from 'fastify-plugin'
import type { Config } from '../src/config/config.js'

declare module 'fastify' {
  interface FastifyInstance {
    config: Config
  }
}

/** The validated configuration, read by every other plugin and route. */
export const configPlugin = fp<{ config: Config }>(
  async (app, options) => {
    app.decorate('config', options.config)
    // loadConfig runs before the logger exists: its warnings are logged here.
    for (const warning of options.config.startupWarnings) app.log.warn(warning)
  },
  { name: 'config' },
)
