// Pins the warm sandbox settings (docs/adr/0390-warm-sandboxes.md): defaults, off, and bounds
// that could never be reached refused at load with the variable to fix.
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load-config.js'
import { ConfigError } from '../../src/errors/config-error.js'

describe('TOOLEXEC_WARM_SANDBOXES…', () => {
  it('defaults to 2 per session, 16 per tenant, 32 per instance, 2 minutes idle', () => {
    expect(loadConfig({}).warmSandboxes).toEqual({ perSession: 2, perTenant: 16, perInstance: 32, idleMs: 120_000 })
  })

  it('an unset per-tenant bound is half the instance bound, at least 8 and at most the instance bound', () => {
    const perTenant = (variables: Record<string, string>) => loadConfig(variables).warmSandboxes.perTenant
    expect(perTenant({ TOOLEXEC_WARM_SANDBOXES_MAX: '64' })).toBe(32)
    expect(perTenant({ TOOLEXEC_WARM_SANDBOXES_MAX: '10' })).toBe(8)
    expect(perTenant({ TOOLEXEC_WARM_SANDBOXES_MAX: '4' })).toBe(4)
    expect(perTenant({ TOOLEXEC_WARM_SANDBOXES: '16', TOOLEXEC_WARM_SANDBOXES_MAX: '20' })).toBe(16)
    expect(perTenant({ TOOLEXEC_WARM_SANDBOXES_PER_TENANT: '3' })).toBe(3)
    expect(() => loadConfig({ TOOLEXEC_WARM_SANDBOXES: '4', TOOLEXEC_WARM_SANDBOXES_MAX: '3' })).toThrow(
      'TOOLEXEC_WARM_SANDBOXES_MAX',
    )
  })

  it('0 turns the pool off whatever the other bounds say', () => {
    expect(loadConfig({ TOOLEXEC_WARM_SANDBOXES: '0', TOOLEXEC_WARM_SANDBOXES_PER_TENANT: '1' }).warmSandboxes).toEqual(
      { perSession: 0, perTenant: 0, perInstance: 0, idleMs: 120_000 },
    )
  })

  it('refuses a per-tenant bound below the per-session one, and an instance bound below the tenant one', () => {
    const tenant = () => loadConfig({ TOOLEXEC_WARM_SANDBOXES: '4', TOOLEXEC_WARM_SANDBOXES_PER_TENANT: '2' })
    expect(tenant).toThrow(ConfigError)
    expect(tenant).toThrow('TOOLEXEC_WARM_SANDBOXES_PER_TENANT')
    const instance = () => loadConfig({ TOOLEXEC_WARM_SANDBOXES_PER_TENANT: '8', TOOLEXEC_WARM_SANDBOXES_MAX: '4' })
    expect(instance).toThrow('TOOLEXEC_WARM_SANDBOXES_MAX')
  })

  it.each([
    ['TOOLEXEC_WARM_SANDBOXES', '-1'],
    ['TOOLEXEC_WARM_SANDBOXES', '17'],
    ['TOOLEXEC_WARM_SANDBOXES', 'two'],
    ['TOOLEXEC_WARM_SANDBOXES_PER_TENANT', '0'],
    ['TOOLEXEC_WARM_SANDBOXES_MAX', '0'],
    ['TOOLEXEC_WARM_SANDBOXES_IDLE_MS', '10'],
  ])('refuses %s=%s', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(`Invalid environment variable ${variable}`)
  })
})
