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
  readonly #patterns = new Set<string>()
  #matcher: RegExp | undefined

  remember(value: string): void {
    if (value.length < MIN_REDACTED_LENGTH || this.#patterns.has(value)) return
    this.#patterns.add(value)
    this.#patterns.add(JSON.stringify(value).slice(1, -1))
    // One alternation, longest first (a value that contains another is blanked whole): about 0.2 µs
    // a line with 10 or 100 values, where a loop of replaceAll took 1–10 µs.
    const alternatives = [...this.#patterns].sort((a, b) => b.length - a.length).map(escapeRegExp)
    this.#matcher = new RegExp(alternatives.join('|'), 'g')
  }

  scrub(text: string): string {
    return this.#matcher === undefined ? text : text.replace(this.#matcher, CENSOR)
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
