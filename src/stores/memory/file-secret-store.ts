import { randomUUID } from 'node:crypto'
import { chmod, mkdir, open, readFile, rename, rm } from 'node:fs/promises'
import path from 'node:path'
import { createSerialQueue } from '../../async/serial-queue.js'
import type { SealedSecret, SecretStore } from '../../secrets/secret-store.js'

type SecretsFile = { version: 1; secrets: SealedSecret[] }

/** The file's content, or an empty store when there is none yet; anything else unreadable throws. */
async function readSecretsFile(file: string): Promise<Map<string, SealedSecret>> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new Map()
    throw error
  }
  const parsed = JSON.parse(text) as Partial<SecretsFile>
  if (parsed.version !== 1 || !Array.isArray(parsed.secrets))
    throw new Error(`${file} is not a toolexec secrets file (expected {"version":1,"secrets":[…]})`)
  return new Map(parsed.secrets.map((record) => [record.name, record]))
}

/**
 * Sealed secrets in memory, written through to one JSON file (TOOLEXEC_SECRETS_FILE) on every
 * change: a new file of mode 0600 renamed over the old one, so a crash leaves the old or the new
 * file, never half of one, and no other user of the host can read it
 * (docs/adr/0330-secret-store.md). Writes go one at a time.
 */
export async function openFileSecretStore(file: string): Promise<SecretStore> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 })
  const secrets = await readSecretsFile(file)
  // A file another tool left readable by others is tightened at once.
  if (secrets.size > 0) await chmod(file, 0o600)
  const writes = createSerialQueue()

  function persist(): Promise<void> {
    const body: SecretsFile = { version: 1, secrets: [...secrets.values()] }
    const text = `${JSON.stringify(body, null, 2)}\n`
    return writes.run(async () => {
      const temporary = `${file}.${randomUUID()}.tmp`
      try {
        const handle = await open(temporary, 'wx', 0o600)
        try {
          await handle.writeFile(text, 'utf8')
          await handle.sync()
        } finally {
          await handle.close()
        }
        await rename(temporary, file)
      } catch (error) {
        await rm(temporary, { force: true })
        throw error
      }
    })
  }

  return {
    get: async (name) => secrets.get(name),
    async put(record) {
      secrets.set(record.name, record)
      await persist()
    },
    async delete(name) {
      if (!secrets.delete(name)) return false
      await persist()
      return true
    },
    list: async () => [...secrets.values()].sort((a, b) => a.name.localeCompare(b.name)),
    close: () => writes.idle(),
  }
}
