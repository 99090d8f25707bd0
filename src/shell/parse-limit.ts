/**
 * The longest command parsed as shell (TOOLEXEC_MAX_PARSED_COMMAND_CHARS): parsing costs about
 * 0.5 ms per KB on the event loop (700 ms for 1 MiB on our 2-core machine), so a longer command is
 * treated as unparsable, as `parseShell` treats anything it cannot represent: deny and ask rules
 * still look through rough pieces of its text (fail closed), no allow rule allows it, and it is
 * not read-only (docs/adr/0232-rule-matching-is-bounded.md). Set at start.
 */
export const DEFAULT_MAX_PARSED_COMMAND_CHARS = 64 * 1024

let limit = DEFAULT_MAX_PARSED_COMMAND_CHARS

export function setMaxParsedCommandChars(value: number): void {
  limit = value
}

export function maxParsedCommandChars(): number {
  return limit
}
