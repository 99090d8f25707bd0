// Pins the operator settings file: what loads, and errors that name the file and each bad field.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadSettings, parseSettings, SettingsError } from '../../src/config/settings-schema.js'

let directory: string
beforeAll(async () => {
  directory = await mkdtemp(path.join(os.tmpdir(), 'toolexec-settings-'))
})
afterAll(() => rm(directory, { recursive: true, force: true }))

async function write(name: string, content: string): Promise<string> {
  const file = path.join(directory, name)
  await writeFile(file, content)
  return file
}

const example = {
  $schema: 'https://example.test/settings.json',
  permissions: {
    allow: ['Bash(npm run test:*)', 'Read(src/**)'],
    deny: ['Bash(rm:*)', 'mcp__untrusted'],
    ask: ['Bash(git push:*)'],
    defaultMode: 'default',
    disableBypassPermissionsMode: 'disable',
  },
  hooks: {
    PreToolUse: [{ matcher: 'Bash|Edit', hooks: [{ type: 'command', command: './check.sh', timeout: 10 }] }],
    PostToolUse: [{ matcher: 'mcp__.*', hooks: [{ type: 'http', url: 'http://127.0.0.1:9/audit' }] }],
  },
  mcpServers: { anything: { command: 'server' } },
}

describe('loadSettings', () => {
  it('loads a valid file', async () => {
    const settings = loadSettings(await write('ok.json', JSON.stringify(example)))
    expect(settings.permissions?.deny).toEqual(['Bash(rm:*)', 'mcp__untrusted'])
    expect(settings.hooks?.PreToolUse?.[0]?.hooks[0]).toEqual({ type: 'command', command: './check.sh', timeout: 10 })
  })

  it('names a missing file', () => {
    expect(() => loadSettings(path.join(directory, 'nope.json'))).toThrow(/Cannot read settings file .*nope\.json/)
  })

  it('names a file that is not JSON', async () => {
    const file = await write('bad.json', '{ "permissions": ')
    expect(() => loadSettings(file)).toThrow(SettingsError)
    expect(() => loadSettings(file)).toThrow(/bad\.json is not valid JSON/)
  })

  it.each([
    [{ permissions: { deny: ['Bash', 'Bash('] } }, 'permissions.deny[1]: Invalid permission rule "Bash("'],
    [{ permissions: { defaultMode: 'yolo' } }, 'permissions.defaultMode'],
    [{ permissions: { disableBypassPermissionsMode: 'yes' } }, 'permissions.disableBypassPermissionsMode'],
    [
      { permissions: { defaultMode: 'bypassPermissions', disableBypassPermissionsMode: 'disable' } },
      'permissions.defaultMode: cannot be bypassPermissions',
    ],
    [{ permision: {} }, 'permision'],
    [{ permissions: { allow: ['mcp__srv(x)'] } }, 'permissions.allow[0]: MCP rules take no content'],
    [{ hooks: { PreTooluse: [] } }, 'hooks.PreTooluse'],
    [
      { hooks: { PreToolUse: [{ matcher: '(', hooks: [] }] } },
      'hooks.PreToolUse[0].matcher: not a valid regular expression',
    ],
    [{ hooks: { PreToolUse: [{ hooks: [{ type: 'command' }] }] } }, 'hooks.PreToolUse[0].hooks[0].command'],
    [{ hooks: { PreToolUse: [{ hooks: [{ type: 'http', url: 'ftp://x' }] }] } }, 'hooks.PreToolUse[0].hooks[0].url'],
    [
      { hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: 'x', timeout: -1 }] }] } },
      'hooks.PostToolUse[0].hooks[0].timeout',
    ],
  ])('rejects %j naming the field', (value, field) => {
    expect(() => parseSettings(value, 'settings.json')).toThrow(field)
  })

  it('starts each error with the file it came from', () => {
    expect(() => parseSettings({ permissions: { allow: [1] } }, '/etc/toolexec.json')).toThrow(
      /^Invalid settings in \/etc\/toolexec\.json:\n {2}- permissions\.allow\[0\]/,
    )
  })
})
