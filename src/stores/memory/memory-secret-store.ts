import type { SealedSecret, SecretStore } from '../../secrets/secret-store.js'

/** Sealed secrets in memory only (tests and embedders that keep nothing on disk). */
export function createMemorySecretStore(): SecretStore {
  const secrets = new Map<string, SealedSecret>()
  return {
    get: async (name) => secrets.get(name),
    put: async (record) => {
      secrets.set(record.name, record)
    },
    delete: async (name) => secrets.delete(name),
    list: async () => [...secrets.values()].sort((a, b) => a.name.localeCompare(b.name)),
    close: async () => {},
  }
}
