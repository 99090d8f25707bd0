import { openSecret, sealSecret } from './seal-secret.js'
import { SecretsNotConfiguredError } from './secret-errors.js'
import type { SecretKey } from './secret-key.js'
import type { SecretRedactor } from './secret-redactor.js'
import type { SecretStore } from './secret-store.js'

/**
 * Records the service keeps for itself in the secret store (OAuth tokens, client registrations,
 * pending authorizations: docs/adr/0420-oauth-tokens-in-the-vault.md). Their names carry a `:`,
 * which no secret name may, so `/v1/secrets` can neither list, read, write nor delete them.
 */
const SERVICE_RECORD_SEPARATOR = ':'

export function isServiceRecordName(name: string): boolean {
  return name.includes(SERVICE_RECORD_SEPARATOR)
}

export type ServiceRecords = {
  /** The value, or undefined when none is stored or it no longer opens (another key). */
  read(name: string): Promise<string | undefined>
  write(name: string, value: string): Promise<void>
  remove(name: string): Promise<void>
  /**
   * Holds `name` for at most `ttlMs` across every instance sharing the store (Redis) or in this
   * process; undefined when another holder has it. Returns the release function.
   */
  tryLock(name: string, ttlMs: number): Promise<(() => Promise<void>) | undefined>
  /** Told the name of each record written or deleted, where the store can tell (else this instance's). */
  onChange(listener: (name: string) => void): () => void
}

export function createServiceRecords(options: {
  store: SecretStore
  key: SecretKey | undefined
  redactor: SecretRedactor
  now: () => Date
}): ServiceRecords {
  const { store, redactor } = options
  const localLocks = new Map<string, number>()
  const listeners = new Set<(name: string) => void>()

  function requireKey(): SecretKey {
    if (options.key === undefined) throw new SecretsNotConfiguredError()
    return options.key
  }

  function checkName(name: string): void {
    if (!isServiceRecordName(name)) throw new TypeError(`${JSON.stringify(name)} is not a service record name`)
  }

  function told(name: string): void {
    if (store.onChange) return
    for (const listener of [...listeners]) listener(name)
  }

  return {
    async read(name) {
      checkName(name)
      const key = requireKey()
      const record = await store.get(name)
      if (record === undefined) return undefined
      try {
        const value = openSecret(key, name, record.sealed)
        redactor.remember(value)
        return value
      } catch {
        return undefined
      }
    },
    async write(name, value) {
      checkName(name)
      const key = requireKey()
      redactor.remember(value)
      const at = options.now().toISOString()
      const previous = await store.get(name)
      await store.put({
        name,
        sealed: sealSecret(key, name, value),
        created_at: previous?.created_at ?? at,
        updated_at: at,
        updated_by: 'toolexec',
      })
      told(name)
    },
    async remove(name) {
      checkName(name)
      await store.delete(name)
      told(name)
    },
    async tryLock(name, ttlMs) {
      checkName(name)
      if (store.tryLock) return store.tryLock(name, ttlMs)
      const now = Date.now()
      if ((localLocks.get(name) ?? 0) > now) return undefined
      const until = now + ttlMs
      localLocks.set(name, until)
      return async () => {
        if (localLocks.get(name) === until) localLocks.delete(name)
      }
    },
    onChange(listener) {
      if (store.onChange) return store.onChange(listener)
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
}
