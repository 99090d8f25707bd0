import { openSecret, sealSecret } from './seal-secret.js'
import { SecretsNotConfiguredError, UnknownSecretError } from './secret-errors.js'
import type { SecretKey } from './secret-key.js'
import { isSecretName, SECRET_NAME_RULE } from './secret-name.js'
import type { SecretRedactor } from './secret-redactor.js'
import type { SecretStore } from './secret-store.js'
import { createServiceRecords, isServiceRecordName } from './service-records.js'

/** A secret as the API lists it: never the value. */
export type SecretInfo = { name: string; created_at: string; updated_at: string; updated_by: string }

export type SecretVaultOptions = {
  store: SecretStore
  /** TOOLEXEC_SECRET_KEY; without it nothing can be written or resolved. */
  key: SecretKey | undefined
  redactor: SecretRedactor
  now?: () => Date
}

/**
 * The deployment's secrets: written and listed by admins, resolved by the MCP client and HTTP
 * hooks when they connect or send (docs/adr/0330-secret-store.md). Values are sealed before they
 * reach a store and are remembered by the redactor whenever they pass through this process.
 */
export function createSecretVault(options: SecretVaultOptions) {
  const { store, redactor } = options
  const now = options.now ?? (() => new Date())
  const writeListeners = new Set<(name: string) => void>()

  function requireKey(): SecretKey {
    if (options.key === undefined) throw new SecretsNotConfiguredError()
    return options.key
  }

  function checkName(name: string): void {
    if (!isSecretName(name)) throw new TypeError(`${JSON.stringify(name)}: ${SECRET_NAME_RULE}`)
  }

  return {
    configured: options.key !== undefined,

    /** Creates or replaces `name`; `by` is who wrote it (a key's name). Returns whether it was new. */
    async write(name: string, value: string, by: string): Promise<{ created: boolean; info: SecretInfo }> {
      checkName(name)
      const key = requireKey()
      redactor.remember(value)
      const previous = await store.get(name)
      const at = now().toISOString()
      const record = {
        name,
        sealed: sealSecret(key, name, value),
        created_at: previous?.created_at ?? at,
        updated_at: at,
        updated_by: by,
      }
      await store.put(record)
      for (const listener of [...writeListeners]) listener(name)
      const { sealed: _sealed, ...info } = record
      return { created: previous === undefined, info }
    },

    async list(): Promise<SecretInfo[]> {
      // The service's own records (OAuth tokens) are not the admins' secrets: never listed (ADR 0420).
      return (await store.list())
        .filter((record) => !isServiceRecordName(record.name))
        .map(({ sealed: _sealed, ...info }) => info)
    },

    remove: (name: string): Promise<boolean> => {
      checkName(name)
      return store.delete(name)
    },

    /** Records the service keeps for itself, sealed like secrets but out of the API's reach (ADR 0420). */
    internal: createServiceRecords({ store, key: options.key, redactor, now }),

    /**
     * Told the name of each secret written: on any instance where the store can tell (Redis), else
     * on this one. Returns the unsubscribe function.
     */
    onWrite(listener: (name: string) => void): () => void {
      if (store.onChange)
        return store.onChange((name) => {
          if (!isServiceRecordName(name)) listener(name)
        })
      writeListeners.add(listener)
      return () => writeListeners.delete(listener)
    },

    /** The value of `name`; UnknownSecretError when none is stored, SecretUnreadableError when it does not open. */
    async resolve(name: string): Promise<string> {
      const key = requireKey()
      const record = await store.get(name)
      if (record === undefined) throw new UnknownSecretError(name)
      const value = openSecret(key, name, record.sealed)
      redactor.remember(value)
      return value
    },

    close: () => store.close(),
  }
}

export type SecretVault = ReturnType<typeof createSecretVault>
