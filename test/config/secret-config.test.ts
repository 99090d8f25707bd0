// Pins the secret store's variables (docs/adr/0330, 0331): the key's forms and refusals, the file
// kept out of the directories tenants' tools read, and who manages secrets by default.
import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/config/load-config.js'

const KEY = randomBytes(32).toString('hex')

describe('secret store configuration', () => {
  it('has no key, a file under .data and every admin key by default', () => {
    const { secrets } = loadConfig({}, '/srv')
    expect(secrets).toEqual({ key: undefined, file: '/srv/.data/secrets.json', adminTenants: 'all' })
    expect(loadConfig({ TOOLEXEC_SECRET_KEY: KEY }, '/srv').secrets.key?.bytes().toString('hex')).toBe(KEY)
  })

  it('refuses a malformed key, naming the variable', () => {
    expect(() => loadConfig({ TOOLEXEC_SECRET_KEY: 'not-a-key' })).toThrow(
      /Invalid environment variable TOOLEXEC_SECRET_KEY: expected 32 bytes/,
    )
  })

  it('refuses a secrets file inside a directory tenants read', () => {
    expect(() => loadConfig({ TOOLEXEC_SECRETS_FILE: './.data/workspace/secrets.json' }, '/srv')).toThrow(
      /TOOLEXEC_SECRETS_FILE: \/srv\/.data\/workspace\/secrets.json is inside TOOLEXEC_WORKSPACE/,
    )
    expect(() => loadConfig({ TOOLEXEC_SECRETS_FILE: '/b/s.json', TOOLEXEC_BLOB_DIR: '/b' }, '/srv')).toThrow(
      /inside TOOLEXEC_BLOB_DIR/,
    )
  })

  it('lets no admin key manage secrets with several tenants until TOOLEXEC_SECRETS_ADMIN_TENANTS names some', () => {
    const keys = 'acme:k1,globex:k2'
    expect(loadConfig({ TOOLEXEC_API_KEYS: keys }).secrets.adminTenants).toEqual([])
    expect(
      loadConfig({ TOOLEXEC_API_KEYS: keys, TOOLEXEC_SECRETS_ADMIN_TENANTS: 'acme' }).secrets.adminTenants,
    ).toEqual(['acme'])
    expect(() => loadConfig({ TOOLEXEC_API_KEYS: keys, TOOLEXEC_SECRETS_ADMIN_TENANTS: 'acme,initech' })).toThrow(
      /TOOLEXEC_SECRETS_ADMIN_TENANTS: no API key belongs to tenant "initech"/,
    )
  })
})
