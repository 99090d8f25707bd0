// Keys whose values are taken for secrets wherever they appear in an input.
const SECRET_KEY = /token|secret|passw|api[_-]?key|authorization|credential|private[_-]?key/i
const CENSOR = '[redacted]'

/**
 * A copy of a tool input with the values of secret-looking keys replaced (docs/adr/0245): kept
 * only when the operator asks for inputs in the audit trail. A command line is kept as written:
 * what it ran is the point of the record, and the digest is always there.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 64) return CENSOR
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1))
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, child]) => [
        key,
        SECRET_KEY.test(key) ? CENSOR : redactSecrets(child, depth + 1),
      ]),
    )
  }
  return value
}
