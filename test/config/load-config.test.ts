// Pins loadConfig: the embedded defaults, a bad value naming its variable, the concurrency cap's
// fall-back with a warning, API keys to tenants, and refusing a public HOST without keys.
import { mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { keyDigest } from '../../src/auth/api-key.js'
import { loadConfig } from '../../src/config/load-config.js'
import { parseApiKeys } from '../../src/config/parse-api-keys.js'
import { ConfigError } from '../../src/errors/config-error.js'

describe('loadConfig', () => {
  it('has working defaults for an empty environment', () => {
    const config = loadConfig({}, '/srv/app')
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8080,
      maxToolUseConcurrency: 10,
      simple: false,
      workspace: path.resolve('/srv/app/.data/workspace'),
      blobDir: path.resolve('/srv/app/.data/blobs'),
      apiKeys: [],
      logLevel: 'info',
      sandbox: 'auto',
      maxResultChars: 200_000,
      permissionTimeoutMs: 60_000,
    })
    expect(config.settingsPath).toBeUndefined()
    expect(config.startupWarnings).toEqual([expect.stringContaining('TOOLEXEC_API_KEYS is not set')])
  })

  it('reads every variable', () => {
    const config = loadConfig(
      {
        HOST: '0.0.0.0',
        PORT: '9000',
        CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: '3',
        CLAUDE_CODE_SIMPLE: 'true',
        TOOLEXEC_WORKSPACE: '/data/ws',
        TOOLEXEC_BLOB_DIR: 'blobs',
        TOOLEXEC_SETTINGS: 'settings.json',
        TOOLEXEC_API_KEYS: 'acme:k1',
        LOG_LEVEL: 'debug',
        TOOLEXEC_SANDBOX: 'off',
        TOOLEXEC_SHUTDOWN_GRACE_MS: '2500',
        TOOLEXEC_MAX_FRAME_BYTES: '4096',
        TOOLEXEC_ALLOWED_HOSTS: 'Toolexec.Example, api.example',
        TOOLEXEC_ALLOWED_ORIGINS: 'https://App.Example:443,http://localhost:3000/',
        TOOLEXEC_BASH_ENV_PASSTHROUGH: 'NPM_TOKEN,GIT_AUTHOR_NAME',
        TOOLEXEC_PROCESS_NICE: '5',
        TOOLEXEC_MAX_STARTING_PROCESSES: '3',
        TOOLEXEC_SPAWNER: 'node',
      },
      '/srv',
    )
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9000,
      maxToolUseConcurrency: 3,
      simple: true,
      workspace: '/data/ws',
      blobDir: '/srv/blobs',
      settingsPath: '/srv/settings.json',
      processes: { nice: 5, maxStarting: 3, spawner: 'node' },
      apiKeys: [{ tenant: 'acme', name: 'acme-key-1', role: 'admin', digest: keyDigest('k1') }],
      logLevel: 'debug',
      sandbox: 'off',
      shutdownGraceMs: 2500,
      maxFrameBytes: 4096,
      allowedHosts: ['toolexec.example', 'api.example'],
      allowedOrigins: ['https://app.example', 'http://localhost:3000'],
      bashEnvPassthrough: ['NPM_TOKEN', 'GIT_AUTHOR_NAME'],
      startupWarnings: [],
    })
  })

  it.each([
    ['PORT', 'http'],
    ['PORT', '70000'],
    ['LOG_LEVEL', 'loud'],
    ['TOOLEXEC_SANDBOX', 'docker'],
    ['CLAUDE_CODE_SIMPLE', 'perhaps'],
    ['TOOLEXEC_RUN_TTL_MS', '-5'],
    ['TOOLEXEC_REDIS_URL', 'not a url'],
    ['TOOLEXEC_ALLOWED_HOSTS', 'host:8080'],
    ['TOOLEXEC_ALLOWED_ORIGINS', 'https://app.example/path'],
    ['TOOLEXEC_ALLOWED_ORIGINS', 'null'],
    ['TOOLEXEC_BASH_ENV_PASSTHROUGH', 'TOOLEXEC_API_KEYS'],
    ['TOOLEXEC_BASH_ENV_PASSTHROUGH', 'NOT-A-NAME'],
    ['TOOLEXEC_PROCESS_NICE', '20'],
    ['TOOLEXEC_PROCESS_NICE', '-5'],
    ['TOOLEXEC_MAX_STARTING_PROCESSES', '0'],
    ['TOOLEXEC_SPAWNER', 'vfork'],
  ])('names %s when it is %j', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [variable]: value })).toThrow(`Invalid environment variable ${variable}`)
  })

  it.each(['0', '-1', '2.5', 'ten', ''])(
    'falls back to 10 with a warning for CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY=%j',
    (value) => {
      const config = loadConfig({ CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY: value })
      expect(config.maxToolUseConcurrency).toBe(10)
      if (value !== '') {
        expect(config.startupWarnings).toContainEqual(expect.stringContaining('CLAUDE_CODE_MAX_TOOL_USE_CONCURRENCY'))
      }
    },
  )

  it('refuses a non-loopback HOST without API keys, and takes a Redis URL without a warning', () => {
    expect(() => loadConfig({ HOST: '0.0.0.0' })).toThrow('TOOLEXEC_API_KEYS')
    expect(loadConfig({ HOST: '::1' }).host).toBe('::1')
    const withRedis = loadConfig({ TOOLEXEC_REDIS_URL: 'redis://cache:6379' })
    expect(withRedis.redisUrl).toBe('redis://cache:6379')
    expect(withRedis.startupWarnings).not.toContainEqual(expect.stringContaining('REDIS'))
    expect(withRedis.instanceLeaseMs).toBe(10_000)
  })
})

describe('parseApiKeys', () => {
  it('maps several keys to one tenant', () => {
    expect(parseApiKeys('acme:a1, acme:a2,globex:g1')).toEqual([
      { tenant: 'acme', name: 'acme-key-1', role: 'admin', digest: keyDigest('a1') },
      { tenant: 'acme', name: 'acme-key-2', role: 'admin', digest: keyDigest('a2') },
      { tenant: 'globex', name: 'globex-key-1', role: 'admin', digest: keyDigest('g1') },
    ])
  })

  it('reads named keys with a role, and a keys file holding only digests', () => {
    expect(parseApiKeys('ci=acme:runner:r1,alice=acme:approver:a:1')).toEqual([
      { tenant: 'acme', name: 'ci', role: 'runner', digest: keyDigest('r1') },
      { tenant: 'acme', name: 'alice', role: 'approver', digest: keyDigest('a:1') },
    ])
    const dir = mkdtempSync(path.join(os.tmpdir(), 'keys-'))
    const file = path.join(dir, 'keys.json')
    writeFileSync(
      file,
      JSON.stringify([
        { name: 'bob', tenant: 'globex', role: 'admin', key_sha256: keyDigest('bob-key-0123456789') },
        { name: 'bot', tenant: 'globex', role: 'runner', key: 'bot-key-0123456789' },
      ]),
    )
    const config = loadConfig({ TOOLEXEC_API_KEYS: 'ci=acme:runner:r1', TOOLEXEC_API_KEYS_FILE: file })
    expect(config.apiKeys.map((key) => [key.name, key.tenant, key.role])).toEqual([
      ['ci', 'acme', 'runner'],
      ['bob', 'globex', 'admin'],
      ['bot', 'globex', 'runner'],
    ])
    writeFileSync(file, JSON.stringify([{ name: 'ci', tenant: 'globex', role: 'admin', key: 'another-key-0123456' }]))
    expect(() => loadConfig({ TOOLEXEC_API_KEYS: 'ci=acme:runner:r1', TOOLEXEC_API_KEYS_FILE: file })).toThrow(
      'the key name "ci" is used twice',
    )
    writeFileSync(file, JSON.stringify([{ name: 'x', tenant: 'globex', role: 'owner', key: 'another-key-0123456' }]))
    expect(() => loadConfig({ TOOLEXEC_API_KEYS_FILE: file })).toThrow('TOOLEXEC_API_KEYS_FILE')
  })

  it.each([
    'acme',
    ':key',
    'ac/me:key',
    'acme:',
    'acme:k,globex:k',
    'x=acme:owner:k',
    'x=acme:runner:',
    'a b=acme:admin:k',
  ])('rejects %j naming the variable', (value) => {
    expect(() => parseApiKeys(value)).toThrow('TOOLEXEC_API_KEYS')
  })
})
