import fp from 'fastify-plugin'
import { loadSettings, type Settings } from '../src/config/settings-schema.js'

declare module 'fastify' {
  interface FastifyInstance {
    settings: Settings
  }
}

export type SettingsPluginOptions = {
  /** Replaces the file named by TOOLEXEC_SETTINGS (tests and embedders). */
  settings?: Settings
}

/** The operator's settings file (permissions, hooks, mcpServers), read once at start. */
export const settingsPlugin = fp<SettingsPluginOptions>(
  async (app, options) => {
    const { settingsPath } = app.config
    app.decorate('settings', options.settings ?? (settingsPath ? loadSettings(settingsPath) : {}))
  },
  { name: 'settings', dependencies: ['config'] },
)
