// Pins the Bash availability rule: Bash is left out only with several tenants and no sandbox, and
// an explicit TOOLEXEC_SANDBOX=bwrap that cannot work is a ConfigError naming the variable.
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/errors/config-error.js'
import { detectBashAvailability, dropBashIfUnavailable } from '../../../src/tools/bash/bash-availability.js'
import { BashTool } from '../../../src/tools/bash/bash-tool.js'
import { ReadTool } from '../../../src/tools/read/read-tool.js'

const MISSING = '/nonexistent/bwrap-for-test'

describe('detectBashAvailability', () => {
  it.each([
    [0, true],
    [1, true],
    [2, false],
  ])('with no sandbox and %i tenants, Bash enabled is %s', (tenantCount, enabled) => {
    expect(detectBashAvailability({ mode: 'off', tenantCount })).toEqual({
      sandbox: 'off',
      reason: 'TOOLEXEC_SANDBOX=off',
      enabled,
    })
  })

  it('falls back to no sandbox under auto, which leaves Bash out for several tenants', () => {
    expect(detectBashAvailability({ mode: 'auto', tenantCount: 3, command: MISSING })).toMatchObject({
      sandbox: 'off',
      enabled: false,
    })
  })

  it('turns an unusable explicit bwrap into a ConfigError for TOOLEXEC_SANDBOX', () => {
    const detect = () => detectBashAvailability({ mode: 'bwrap', tenantCount: 1, command: MISSING })
    expect(detect).toThrow(ConfigError)
    expect(detect).toThrow('Invalid environment variable TOOLEXEC_SANDBOX: TOOLEXEC_SANDBOX=bwrap but the sandbox')
  })
})

describe('dropBashIfUnavailable', () => {
  it('removes only Bash, and only when it is not available', () => {
    const tools = [BashTool, ReadTool]
    const off = { sandbox: 'off', reason: 'test' } as const
    expect(dropBashIfUnavailable(tools, { ...off, enabled: true })).toEqual(tools)
    expect(dropBashIfUnavailable(tools, { ...off, enabled: false })).toEqual([ReadTool])
  })
})
