// Pins the settings checks at start: a command hook whose program or script does not exist stops
// the start with an error naming the hook; a permission rule for a tool the service does not have
// is a warning naming the rule.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { SettingsError } from '../../src/config/settings-schema.js'
import { buildTestApp } from '../helpers/build-test-app.js'

async function settingsFile(settings: unknown): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'toolexec-settings-'))
  onTestFinished(() => rm(directory, { recursive: true, force: true }))
  const file = path.join(directory, 'settings.json')
  await writeFile(file, JSON.stringify(settings))
  return file
}

const commandHooks = (...commands: string[]) => ({
  hooks: { PreToolUse: [{ matcher: 'Bash', hooks: commands.map((command) => ({ type: 'command', command })) }] },
})

describe('hook commands at start', () => {
  it('refuses a program or a script that does not exist, naming each hook', async () => {
    const file = await settingsFile(
      commandHooks('/opt/nowhere/check.sh', 'no-such-program-7f3a --flag', 'sh /opt/nowhere/script.sh', 'true'),
    )
    const start = buildTestApp({ env: { TOOLEXEC_SETTINGS: file } })
    await expect(start).rejects.toThrow(SettingsError)
    await expect(start).rejects.toThrow(
      [
        `${file}: hook commands that cannot start:`,
        '  hooks.PreToolUse[0].hooks[0]: /opt/nowhere/check.sh does not exist or is not executable',
        '  hooks.PreToolUse[0].hooks[1]: no-such-program-7f3a is not on the PATH',
        '  hooks.PreToolUse[0].hooks[2]: /opt/nowhere/script.sh does not exist',
      ].join('\n'),
    )
  })

  it('accepts builtins, PATH programs, relative paths and commands with variables', async () => {
    const file = await settingsFile(
      commandHooks('exit 0', 'FOO=1 node -e "process.exit(0)"', './hooks/check.sh', '"$CLAUDE_PROJECT_DIR"/hook.sh'),
    )
    const { app } = await buildTestApp({ env: { TOOLEXEC_SETTINGS: file } })
    expect(app.settings.hooks?.PreToolUse?.[0]?.hooks).toHaveLength(4)
  })
})

describe('permission rules at start', () => {
  it('refuses to start on a rule that can never match, naming it and the tool it likely meant', async () => {
    const start = buildTestApp({
      settings: { permissions: { allow: ['Bash(ls:*)', 'Read'], deny: ['Bsh(rm:*)', 'TodoWrite(x)'] } },
    })
    await expect(start).rejects.toThrow(
      'Invalid environment variable TOOLEXEC_SETTINGS: permission rule "Bsh(rm:*)" names no tool of this pool (tool names are case-sensitive): did you mean Bash?; permission rule "TodoWrite(x)" TodoWrite takes no content',
    )
  })

  it('accepts built-ins, the client tools, aliases and rules for configured MCP servers', async () => {
    const { app } = await buildTestApp({
      settings: {
        permissions: {
          allow: ['Bash(ls:*)', 'Read(src/**)', 'bash(npm test:*)', 'mcp__docs__search'],
          deny: ['Edit(.env)', 'str_replace_based_edit_tool'],
          ask: ['mcp__docs'],
        },
        mcpServers: { docs: { type: 'http', url: 'http://127.0.0.1:9/mcp' } },
      },
    })
    expect(app.settings.permissions?.deny).toEqual(['Edit(.env)', 'str_replace_based_edit_tool'])
  })
})
