import { ConfigError } from '../errors/config-error.js'

const KEY_BYTES = 32
const HEX = /^[0-9a-fA-F]{64}$/
const BASE64 = /^[A-Za-z0-9+/]{43}=?$|^[A-Za-z0-9_-]{43}$/

/**
 * The AES-256 key of the secret store (TOOLEXEC_SECRET_KEY). The bytes sit in a private field:
 * logging, `JSON.stringify` or `util.inspect` of a config that holds the key show `[redacted]`.
 */
export class SecretKey {
  readonly #bytes: Buffer
  constructor(bytes: Buffer) {
    if (bytes.length !== KEY_BYTES) throw new TypeError(`SecretKey: expected ${KEY_BYTES} bytes, got ${bytes.length}`)
    this.#bytes = Buffer.from(bytes)
  }
  /** The key itself, for node:crypto only. */
  bytes(): Buffer {
    return this.#bytes
  }
  toJSON(): string {
    return '[redacted]'
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return 'SecretKey [redacted]'
  }
}

/**
 * TOOLEXEC_SECRET_KEY: 32 random bytes as 64 hex digits or as base64 (standard or URL-safe). A
 * value of another shape or length is refused with what to run instead, never echoed.
 */
export function parseSecretKey(raw: string | undefined): SecretKey | undefined {
  if (raw === undefined) return undefined
  const text = raw.trim()
  let bytes: Buffer | undefined
  if (HEX.test(text)) bytes = Buffer.from(text, 'hex')
  else if (BASE64.test(text))
    bytes = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64')
  if (bytes?.length !== KEY_BYTES) {
    throw new ConfigError(
      'TOOLEXEC_SECRET_KEY',
      `expected 32 bytes as 64 hex digits or 44 base64 characters (make one with \`openssl rand -base64 32\`), got ${text.length} characters that are neither`,
    )
  }
  return new SecretKey(bytes)
}
