import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { SecretKey } from './secret-key.js'

const ALGORITHM = 'aes-256-gcm'
const NONCE_BYTES = 12
const TAG_BYTES = 16
/** The format of a sealed value, first in the text so a later format can be told apart. */
const VERSION = 'v1'

/** Why a sealed value could not be opened: another key, a value moved to another name, or damage. */
export class SecretUnreadableError extends Error {
  override name = 'SecretUnreadableError'
}

/**
 * Encrypts one value with AES-256-GCM under a fresh random nonce, binding the secret's name as
 * associated data: a sealed value copied to another name does not open
 * (docs/adr/0330-secret-store.md). The result is `v1.<nonce>.<tag>.<ciphertext>`, base64url.
 */
export function sealSecret(key: SecretKey, name: string, value: string): string {
  const nonce = randomBytes(NONCE_BYTES)
  const cipher = createCipheriv(ALGORITHM, key.bytes(), nonce, { authTagLength: TAG_BYTES })
  cipher.setAAD(Buffer.from(name, 'utf8'))
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()])
  return [VERSION, nonce, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.')
}

/** The value `sealSecret` sealed under `name`; throws SecretUnreadableError otherwise. */
export function openSecret(key: SecretKey, name: string, sealed: string): string {
  const [version, nonce, tag, ciphertext, ...rest] = sealed.split('.')
  if (version !== VERSION || nonce === undefined || tag === undefined || ciphertext === undefined || rest.length > 0)
    throw new SecretUnreadableError(`secret "${name}" is stored in a format this version cannot read`)
  try {
    const decipher = createDecipheriv(ALGORITHM, key.bytes(), Buffer.from(nonce, 'base64url'), {
      authTagLength: TAG_BYTES,
    })
    decipher.setAAD(Buffer.from(name, 'utf8'))
    decipher.setAuthTag(Buffer.from(tag, 'base64url'))
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8')
  } catch {
    throw new SecretUnreadableError(
      `secret "${name}" cannot be decrypted: it was written with another TOOLEXEC_SECRET_KEY, or the stored copy is damaged`,
    )
  }
}
