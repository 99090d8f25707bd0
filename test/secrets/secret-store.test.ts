// Pins the secret store (docs/adr/0330-secret-store.md): AES-256-GCM with a fresh nonce per value
// and the name bound as associated data, the key's accepted forms, the file backend (atomic,
// mode 0600, survives a reopen) and the Redis backend on a real redis-server.
import { randomBytes } from 'node:crypto'
import { mkdtemp, readdir, readFile, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { ConfigError } from '../../src/errors/config-error.js'
import { openSecret, SecretUnreadableError, sealSecret } from '../../src/secrets/seal-secret.js'
import { UnknownSecretError } from '../../src/secrets/secret-errors.js'
import { parseSecretKey, SecretKey } from '../../src/secrets/secret-key.js'
import { SecretRedactor } from '../../src/secrets/secret-redactor.js'
import type { SecretStore } from '../../src/secrets/secret-store.js'
import { createSecretVault } from '../../src/secrets/secret-vault.js'
import { openFileSecretStore } from '../../src/stores/memory/file-secret-store.js'
import { createMemorySecretStore } from '../../src/stores/memory/memory-secret-store.js'
import { redisKeys } from '../../src/stores/redis/redis-keys.js'
import { createRedisSecretStore } from '../../src/stores/redis/redis-secret-store.js'
import { type RedisServer, redisSkipReason, startRedisServer } from '../helpers/redis-server.js'

const key = new SecretKey(randomBytes(32))

describe('sealing', () => {
  it('opens what it sealed, with a fresh nonce each time', () => {
    const first = sealSecret(key, 'github', 'ghp_value')
    const second = sealSecret(key, 'github', 'ghp_value')
    expect(first).not.toBe(second)
    expect(first).not.toContain('ghp_value')
    expect(openSecret(key, 'github', first)).toBe('ghp_value')
    expect(openSecret(key, 'github', second)).toBe('ghp_value')
  })

  it('refuses a value moved to another name, opened with another key, or damaged', () => {
    const sealed = sealSecret(key, 'github', 'ghp_value')
    expect(() => openSecret(key, 'gitlab', sealed)).toThrow(SecretUnreadableError)
    expect(() => openSecret(new SecretKey(randomBytes(32)), 'github', sealed)).toThrow(/another TOOLEXEC_SECRET_KEY/)
    const damaged = `${sealed.slice(0, -2)}${sealed.endsWith('A') ? 'B' : 'A'}A`
    expect(() => openSecret(key, 'github', damaged)).toThrow(SecretUnreadableError)
    expect(() => openSecret(key, 'github', 'v2.x.y.z')).toThrow(/format/)
  })
})

describe('TOOLEXEC_SECRET_KEY', () => {
  const bytes = randomBytes(32)
  it('takes 32 bytes as hex, base64 or base64url', () => {
    for (const text of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')]) {
      expect(parseSecretKey(text)?.bytes().equals(bytes)).toBe(true)
    }
    expect(parseSecretKey(undefined)).toBeUndefined()
  })

  it('refuses other lengths and shapes, naming the variable and never echoing the value', () => {
    for (const text of ['short', randomBytes(16).toString('hex'), randomBytes(24).toString('base64'), 'z'.repeat(64)]) {
      let error: unknown
      try {
        parseSecretKey(text)
      } catch (caught) {
        error = caught
      }
      expect(error).toBeInstanceOf(ConfigError)
      expect((error as ConfigError).message).toMatch(
        /^Invalid environment variable TOOLEXEC_SECRET_KEY: expected 32 bytes/,
      )
      expect((error as ConfigError).message).not.toContain(text)
    }
  })

  it('never shows the key in JSON or util.inspect', async () => {
    const { inspect } = await import('node:util')
    const holder = { key: new SecretKey(bytes) }
    expect(JSON.stringify(holder)).not.toContain(bytes.toString('hex'))
    expect(JSON.stringify(holder)).toContain('[redacted]')
    expect(inspect(holder, { depth: 5 })).not.toContain(bytes.toString('hex').slice(0, 8))
  })
})

describe('the file backend', () => {
  it('writes the file atomically with mode 0600 and reads it back after a reopen', async () => {
    const directory = await mkdtemp(path.join(tmpdir(), 'toolexec-secrets-'))
    const file = path.join(directory, 'data', 'secrets.json')
    const vault = createSecretVault({ store: await openFileSecretStore(file), key, redactor: new SecretRedactor() })
    await vault.write('github', 'ghp_file_value', 'admin-key')
    await vault.write('slack', 'xoxb-file-value', 'admin-key')
    expect((await stat(file)).mode & 0o777).toBe(0o600)
    expect(await readFile(file, 'utf8')).not.toContain('file_value')
    expect(await readdir(path.dirname(file))).toEqual(['secrets.json'])
    await vault.close()

    const reopened = createSecretVault({ store: await openFileSecretStore(file), key, redactor: new SecretRedactor() })
    expect(await reopened.resolve('github')).toBe('ghp_file_value')
    expect((await reopened.list()).map((info) => info.name)).toEqual(['github', 'slack'])
    expect(await reopened.remove('slack')).toBe(true)
    expect(await reopened.remove('slack')).toBe(false)
    await reopened.close()
  })
})

async function exerciseVault(store: SecretStore): Promise<void> {
  let clock = Date.parse('2026-01-01T00:00:00Z')
  const now = () => {
    clock += 1000
    return new Date(clock)
  }
  const vault = createSecretVault({ store, key, redactor: new SecretRedactor(), now })
  expect((await vault.write('api.token', 'first-value', 'ops')).created).toBe(true)
  const { created, info } = await vault.write('api.token', 'second-value', 'deploy-bot')
  expect(created).toBe(false)
  expect(info).toEqual({
    name: 'api.token',
    created_at: '2026-01-01T00:00:01.000Z',
    updated_at: '2026-01-01T00:00:02.000Z',
    updated_by: 'deploy-bot',
  })
  expect(JSON.stringify(await vault.list())).not.toContain('value')
  expect(await vault.resolve('api.token')).toBe('second-value')
  await expect(vault.resolve('missing')).rejects.toThrow(UnknownSecretError)
  await expect(vault.write('bad name', 'x', 'ops')).rejects.toThrow(/secret name/)
  expect(await vault.remove('api.token')).toBe(true)
  expect(await vault.list()).toEqual([])
}

describe('the vault', () => {
  it('keeps values sealed and lists names only (memory backend)', async () => {
    await exerciseVault(createMemorySecretStore())
  })

  it('refuses to write or resolve without a key', async () => {
    const vault = createSecretVault({
      store: createMemorySecretStore(),
      key: undefined,
      redactor: new SecretRedactor(),
    })
    expect(vault.configured).toBe(false)
    await expect(vault.write('a', 'b', 'ops')).rejects.toThrow(/TOOLEXEC_SECRET_KEY/)
    await expect(vault.resolve('a')).rejects.toThrow(/TOOLEXEC_SECRET_KEY/)
  })
})

describe.skipIf(redisSkipReason !== undefined)('the Redis backend', () => {
  let server: RedisServer
  beforeAll(async () => {
    server = await startRedisServer()
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('keeps sealed values in one hash shared by instances', async () => {
    const first = createRedisSecretStore(new Redis(server.url))
    await exerciseVault(first)
    const vault = createSecretVault({ store: first, key, redactor: new SecretRedactor() })
    await vault.write('shared', 'shared-value', 'ops')
    const other = createRedisSecretStore(new Redis(server.url))
    const seen = createSecretVault({ store: other, key, redactor: new SecretRedactor() })
    expect(await seen.resolve('shared')).toBe('shared-value')
    const reader = new Redis(server.url)
    const raw = await reader.hgetall('toolexec:secrets')
    reader.disconnect()
    expect(Object.keys(raw)).toEqual(['shared'])
    expect(JSON.stringify(raw)).not.toContain('shared-value')
    await first.close()
    await other.close()
  })

  // docs/adr/0581: what was written while an instance was not yet (or no longer) subscribed.
  it('tells a new subscriber every secret written before its subscription took effect', async () => {
    const writer = createSecretVault({
      store: createRedisSecretStore(new Redis(server.url)),
      key,
      redactor: new SecretRedactor(),
    })
    await writer.write('written-early', 'early-value', 'ops')
    const late = createRedisSecretStore(new Redis(server.url))
    const heard: string[] = []
    late.onChange?.((name) => heard.push(name))
    await vi.waitFor(() => expect(heard).toContain('written-early'), { timeout: 10_000 })
    await writer.close()
    await late.close()
  })

  it('subscribes again after its connection drops and catches up on the writes in between', async () => {
    const store = createRedisSecretStore(new Redis(server.url))
    const heard: string[] = []
    store.onChange?.((name) => heard.push(name))
    const admin = new Redis(server.url)
    const subscribed = async () =>
      ((await admin.pubsub('NUMSUB', redisKeys.secretsChannel)) as [string, number])[1] === 1
    await vi.waitFor(async () => expect(await subscribed()).toBe(true), { timeout: 10_000 })
    // The write lands while the subscriber is cut off: no message can carry it.
    await admin.client('KILL', 'TYPE', 'pubsub')
    const writer = createSecretVault({
      store: createRedisSecretStore(new Redis(server.url)),
      key,
      redactor: new SecretRedactor(),
    })
    await writer.write('written-in-the-gap', 'gap-value', 'ops')
    await vi.waitFor(() => expect(heard).toContain('written-in-the-gap'), { timeout: 10_000 })
    // And the subscription is back: a later write arrives as a message.
    await vi.waitFor(async () => expect(await subscribed()).toBe(true), { timeout: 10_000 })
    await writer.write('written-after', 'after-value', 'ops')
    await vi.waitFor(() => expect(heard).toContain('written-after'), { timeout: 10_000 })
    admin.disconnect()
    await writer.close()
    await store.close()
  })
})

describe('the redactor', () => {
  it('blanks values as written and JSON-escaped, longest first, and leaves short ones alone', () => {
    const redactor = new SecretRedactor()
    redactor.remember('a.b*c(d)')
    redactor.remember('say "hi"\n')
    redactor.remember('a.b*c(d)-longer')
    redactor.remember('abc')
    expect(redactor.scrub('x a.b*c(d) y a.b*c(d)-longer z axbxc(d)')).toBe('x [redacted] y [redacted] z axbxc(d)')
    expect(redactor.scrub(JSON.stringify({ v: 'say "hi"\n' }))).toBe('{"v":"[redacted]"}')
    expect(redactor.scrub('abc stays')).toBe('abc stays')
  })
})
