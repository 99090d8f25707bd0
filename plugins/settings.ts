import fp from 'fastify-plugin'
import { loadSettings, type Settings, SettingsError } from '../src/config/settings-schema.js'
import { secretReferenceProblems } from '../src/config/settings-secret-references.js'
import { missingHookCommands } from '../src/hooks/missing-hook-commands.js'
import { oauthSettingsProblems } from '../src/mcp/client/oauth/oauth-settings-problems.js'

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
    const keyConfigured = app.config.secrets.key !== undefined
    const deployment = { keyConfigured, publicUrl: app.config.publicUrl }
    if (options.settings || !settingsPath) {
      const given = options.settings ?? {}
      const problems = secretReferenceProblems(given, keyConfigured)
      if (problems.length > 0) throw new SettingsError(`settings: secret references:\n  ${problems.join('\n  ')}`)
      const oauth = oauthSettingsProblems(given.mcpServers, deployment)
      if (oauth.length > 0) throw new SettingsError(`settings: MCP OAuth:\n  ${oauth.join('\n  ')}`)
      app.decorate('settings', given)
      return
    }
    const settings = loadSettings(settingsPath)
    // A secret reference that can never resolve is refused now, not at the first connection (docs/adr/0332).
    const problems = secretReferenceProblems(settings, keyConfigured)
    if (problems.length > 0) throw new SettingsError(`${settingsPath}: secret references:\n  ${problems.join('\n  ')}`)
    const oauth = oauthSettingsProblems(settings.mcpServers, deployment)
    if (oauth.length > 0) throw new SettingsError(`${settingsPath}: MCP OAuth:\n  ${oauth.join('\n  ')}`)
    // A hook that cannot start would fail on every call, logged but never seen: refuse to start.
    const missing = missingHookCommands(settings.hooks, process.env)
    if (missing.length > 0)
      throw new SettingsError(`${settingsPath}: hook commands that cannot start:\n  ${missing.join('\n  ')}`)
    app.decorate('settings', settings)
  },
  { name: 'settings', dependencies: ['config'] },
)
