const OPEN_OBJECT = 0x7b // {
const OPEN_ARRAY = 0x5b // [
const CLOSE_OBJECT = 0x7d // }
const CLOSE_ARRAY = 0x5d // ]
const QUOTE = 0x22 // "
const BACKSLASH = 0x5c // \

/**
 * Whether JSON text nests objects and arrays deeper than `maxDepth` (`{}` is depth 1). One pass
 * over the text, no recursion and no parse, stopping at the first level too deep: it runs before
 * `JSON.parse`, so a 12 KB body nested 2,000 levels is refused before anything recursive
 * (`structuredClone`, schema checks) can overflow the stack (docs/adr/0095-input-nesting-depth.md).
 * Brackets inside strings do not count; the text need not be valid JSON (the parse decides that).
 */
export function exceedsJsonDepth(text: string, maxDepth: number): boolean {
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index)
    if (inString) {
      if (code === BACKSLASH) index++
      else if (code === QUOTE) inString = false
    } else if (code === QUOTE) {
      inString = true
    } else if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (++depth > maxDepth) return true
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      depth--
    }
  }
  return false
}

/** The message of every refusal, naming the limit and the variable that sets it. */
export function jsonDepthMessage(what: string, maxDepth: number): string {
  return `${what} nests objects and arrays deeper than ${maxDepth} levels; the limit is ${maxDepth} (TOOLEXEC_MAX_INPUT_DEPTH)`
}
