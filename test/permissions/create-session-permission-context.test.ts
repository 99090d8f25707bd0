// Pins how a session's permission context is built from the operator settings and the request.
import { mkdir, mkdtemp, realpath, rm, symlink } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  createSessionPermissionContext,
  SessionPermissionError,
} from '../../src/permissions/create-session-permission-context.js'
import { effectivePermissionMode, updatePermissionContext } from '../../src/tool/permission-context.js'

let root: string
beforeAll(async () => {
  root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'toolexec-session-')))
  await mkdir(path.join(root, 'ws/lib'), { recursive: true })
  await symlink('/', path.join(root, 'ws/escape'))
})
afterAll(() => rm(root, { recursive: true, force: true }))

describe('createSessionPermissionContext', () => {
  it('puts operator rules and session rules under their sources, frozen', () => {
    const context = createSessionPermissionContext(
      { allow: ['Read'], deny: ['Bash(rm:*)'], defaultMode: 'acceptEdits' },
      { allow: ['Bash(ls:*)'], ask: ['Edit'] },
    )
    expect(context.mode).toBe('acceptEdits')
    expect(context.alwaysAllowRules).toEqual({ operatorSettings: ['Read'], session: ['Bash(ls:*)'] })
    expect(context.alwaysDenyRules).toEqual({ operatorSettings: ['Bash(rm:*)'], session: [] })
    expect(context.alwaysAskRules).toEqual({ operatorSettings: [], session: ['Edit'] })
    expect(Object.isFrozen(context.alwaysAllowRules.session)).toBe(true)
    expect(() => (context.alwaysAllowRules.session as string[]).push('Bash')).toThrow(TypeError)
  })

  it('lets the session choose its mode', () => {
    expect(createSessionPermissionContext({ defaultMode: 'plan' }, { mode: 'default' }).mode).toBe('default')
  })

  it('refuses bypassPermissions when the operator disabled it', () => {
    const create = () =>
      createSessionPermissionContext({ disableBypassPermissionsMode: 'disable' }, { mode: 'bypassPermissions' })
    expect(create).toThrow(SessionPermissionError)
    expect(create).toThrow(/disabled by the operator/)
    try {
      create()
    } catch (error) {
      expect((error as SessionPermissionError).code).toBe('bypass_permissions_disabled')
    }
  })

  it('allows bypassPermissions when not disabled', () => {
    const context = createSessionPermissionContext(undefined, { mode: 'bypassPermissions' })
    expect(context.isBypassPermissionsModeAvailable).toBe(true)
    expect(effectivePermissionMode(context)).toBe('bypassPermissions')
  })

  it('treats a bypass mode set later by a modifier as default when disabled', () => {
    const context = createSessionPermissionContext({ disableBypassPermissionsMode: 'disable' })
    const changed = updatePermissionContext(context, { mode: 'bypassPermissions' })
    expect(effectivePermissionMode(changed)).toBe('default')
  })

  it('rejects session rules that do not parse', () => {
    expect(() => createSessionPermissionContext(undefined, { deny: ['Bash(rm'] })).toThrow(
      /Invalid permission rule "Bash\(rm"/,
    )
  })

  it('resolves additional directories inside the workspace, and refuses ones outside', () => {
    const workspaceRoot = path.join(root, 'ws')
    const context = createSessionPermissionContext(undefined, { additionalDirectories: ['lib'], workspaceRoot })
    expect(context.additionalWorkingDirectories).toEqual([path.join(workspaceRoot, 'lib')])
    expect(() => createSessionPermissionContext(undefined, { additionalDirectories: ['/etc'], workspaceRoot })).toThrow(
      /outside the workspace/,
    )
    expect(() =>
      createSessionPermissionContext(undefined, { additionalDirectories: ['escape'], workspaceRoot }),
    ).toThrow(/outside the workspace/)
  })
})
