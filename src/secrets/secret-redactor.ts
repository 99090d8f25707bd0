/** Shorter values are not scrubbed from log lines: they would blank out ordinary words. */
const MIN_REDACTED_LENGTH = 4
const CENSOR = '[redacted]'

/**
 * The secret values this process has written or resolved, and the one function that blanks them
 * out of a log line (as written and as JSON-escaped), whatever key they were logged under: pino's
 * path redaction only knows keys, and a server's stderr or an error message can carry a value
 * anywhere (docs/adr/0334-secret-values-scrubbed-from-logs.md).
 */
export class SecretRedactor {
  readonly #values = new Set<string>()
  #patterns: string[] = []

  remember(value: string): void {
    if (value.length < MIN_REDACTED_LENGTH || this.#values.has(value)) return
    this.#values.add(value)
    const escaped = JSON.stringify(value).slice(1, -1)
    // Longest first: a value that contains another is blanked whole.
    this.#patterns = [...new Set([...this.#patterns, value, escaped])].sort((a, b) => b.length - a.length)
  }

  scrub(text: string): string {
    let result = text
    for (const pattern of this.#patterns) if (result.includes(pattern)) result = result.replaceAll(pattern, CENSOR)
    return result
  }
}
