import { randomBytes } from 'node:crypto'
import { SecretKey } from '../../src/secrets/secret-key.js'
import { SecretRedactor } from '../../src/secrets/secret-redactor.js'
import { createSecretVault } from '../../src/secrets/secret-vault.js'
import { createMemorySecretStore } from '../../src/stores/memory/memory-secret-store.js'

/** A secret vault in memory with a fresh random key: what the MCP client tests keep secrets and tokens in. */
export function createMemoryVault() {
  return createSecretVault({
    store: createMemorySecretStore(),
    key: new SecretKey(randomBytes(32)),
    redactor: new SecretRedactor(),
  })
}
