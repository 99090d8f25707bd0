import fp from 'fastify-plugin'
import { loadSettings, type Settings, SettingsError } from '../src/config/settings-schema.js'
import { missingHookCommands } from '../src/hooks/missing-hook-commands.js'

declare module 'fastify' {
  interface FastifyInstance {
    settings: Settings
  }
}

export type SettingsPluginOptions = {
  /** Replaces the file named by TOOLEXEC_SETTINGS (tests and embedders). */
  settings?: Settings | undefined
}

/** The operator's settings file (permissions, hooks, mcpServers), read once at start. */
export const settingsPlugin = fp<SettingsPluginOptions>(
  async (app, options) => {
    const { settingsPath } = app.config
    if (options.settings || !settingsPath) {
      app.decorate('settings', options.settings ?? {})
      return
    }
    const settings = loadSettings(settingsPath)
    // A hook that cannot start would fail on every call, logged but never seen: refuse to start.
    const missing = missingHookCommands(settings.hooks, process.env)
    if (missing.length > 0)
      throw new SettingsError(`${settingsPath}: hook commands that cannot start:\n  ${missing.join('\n  ')}`)
    app.decorate('settings', settings)
  },
  { name: 'settings', dependencies: ['config'] },
)
