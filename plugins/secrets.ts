import fp from 'fastify-plugin'
import { Redis } from 'ioredis'
import type { Logger } from '../src/logging/logger.js'
import { openSecret } from '../src/secrets/seal-secret.js'
import type { SecretKey } from '../src/secrets/secret-key.js'
import { SecretRedactor } from '../src/secrets/secret-redactor.js'
import type { SecretStore } from '../src/secrets/secret-store.js'
import { createSecretVault, type SecretVault } from '../src/secrets/secret-vault.js'
import { openFileSecretStore } from '../src/stores/memory/file-secret-store.js'
import { createMemorySecretStore } from '../src/stores/memory/memory-secret-store.js'
import { createRedisSecretStore } from '../src/stores/redis/redis-secret-store.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The deployment's secrets (docs/mcp.md#secrets): written by admins, resolved by MCP servers and hooks. */
    secrets: SecretVault
  }
}

export type SecretsPluginOptions = {
  /** The redactor the logger scrubs lines with (buildApp makes it before the logger). */
  redactor?: SecretRedactor | undefined
}

/**
 * The secret store: on Redis with TOOLEXEC_REDIS_URL (one hash shared by the instances), else in
 * TOOLEXEC_SECRETS_FILE; without TOOLEXEC_SECRET_KEY an empty store that refuses writes
 * (docs/adr/0330-secret-store.md). At start every stored value is opened once: the redactor
 * learns them, and values the key cannot open are named in a warning.
 */
export const secretsPlugin = fp<SecretsPluginOptions>(
  async (app, options) => {
    const { key, file } = app.config.secrets
    const redactor = options.redactor ?? new SecretRedactor()
    let store: SecretStore
    if (key === undefined) store = createMemorySecretStore()
    else if (app.config.redisUrl !== undefined) store = createRedisSecretStore(new Redis(app.config.redisUrl))
    else store = await openFileSecretStore(file)
    const vault = createSecretVault({ store, key, redactor })
    app.decorate('secrets', vault)
    app.addHook('onClose', async () => vault.close())
    // In the background: a Redis that answers late must not hold the start.
    if (key !== undefined) void rememberStoredValues(store, key, redactor, app.log)
  },
  { name: 'secrets', dependencies: ['config'] },
)

async function rememberStoredValues(store: SecretStore, key: SecretKey, redactor: SecretRedactor, log: Logger) {
  try {
    const unreadable: string[] = []
    for (const record of await store.list()) {
      try {
        redactor.remember(openSecret(key, record.name, record.sealed))
      } catch {
        unreadable.push(record.name)
      }
    }
    if (unreadable.length > 0)
      log.warn({ secrets: unreadable }, 'secrets that TOOLEXEC_SECRET_KEY cannot decrypt: write them again')
  } catch (error) {
    log.warn({ error: String(error) }, 'the secret store could not be read at start')
  }
}
