// Pins that a permission context is a frozen copy: nothing its input or a caller does changes it (docs/adr/0502).
import { describe, expect, it } from 'vitest'
import { createPermissionContext, updatePermissionContext } from '../../src/tool/permission-context.js'

describe('createPermissionContext', () => {
  it('copies every list, so a later change to the input does not leak in', () => {
    const allow = ['Bash(npm test)']
    const directories = ['/srv/shared']
    const input = { alwaysAllowRules: { session: allow, request: ['Read'] }, additionalWorkingDirectories: directories }
    const context = createPermissionContext(input)
    allow.push('Bash')
    directories.push('/etc')
    input.alwaysAllowRules.request = ['Write']
    expect(context.alwaysAllowRules).toEqual({ session: ['Bash(npm test)'], request: ['Read'] })
    expect(context.additionalWorkingDirectories).toEqual(['/srv/shared'])
  })

  it('is frozen all the way down', () => {
    const context = createPermissionContext({ alwaysDenyRules: { operatorSettings: ['Bash(rm:*)'] } })
    expect(Object.isFrozen(context)).toBe(true)
    expect(Object.isFrozen(context.alwaysDenyRules)).toBe(true)
    expect(Object.isFrozen(context.alwaysDenyRules.operatorSettings)).toBe(true)
    expect(Object.isFrozen(context.additionalWorkingDirectories)).toBe(true)
  })

  it('fills the defaults and keeps shouldAvoidPermissionPrompts only when given', () => {
    expect(createPermissionContext()).toEqual({
      mode: 'default',
      additionalWorkingDirectories: [],
      alwaysAllowRules: {},
      alwaysDenyRules: {},
      alwaysAskRules: {},
      isBypassPermissionsModeAvailable: true,
    })
    expect(createPermissionContext({ shouldAvoidPermissionPrompts: false }).shouldAvoidPermissionPrompts).toBe(false)
  })

  it('shares no list with the context it was updated from', () => {
    const before = createPermissionContext({ alwaysAskRules: { session: ['Edit'] } })
    const after = updatePermissionContext(before, { mode: 'plan' })
    expect(after.mode).toBe('plan')
    expect(after.alwaysAskRules).toEqual({ session: ['Edit'] })
    expect(after.alwaysAskRules.session).not.toBe(before.alwaysAskRules.session)
  })
})
