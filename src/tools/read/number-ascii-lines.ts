export type AsciiLinesOptions = {
  /** Lines to number from the first (Read's offset is 1 on this path). */
  limit: number
  /** A longer line needs its cut marker: the general path then takes the file. */
  maxLineChars: number
  /** A longer text needs its stop note: the general path then takes the file. */
  maxOutputChars: number
}

export type AsciiLines = {
  /** The numbered lines, joined by `\n`, exactly as readTextLines' lines numbered would be. */
  content: string
  /** Lines numbered. */
  count: number
  /** Lines after the numbered ones exist. */
  hasMore: boolean
}

const NEWLINE = 0x0a
const CARRIAGE_RETURN = 0x0d
const SPACE = 0x20
const TAB = 0x09
const ZERO = 0x30
const LAST_ASCII = 0x7f
/** `String(number).padStart(6)` then a tab. */
const PREFIX_WIDTH = 6

/**
 * Numbers the first `limit` lines of an ASCII file read whole straight from its bytes into one
 * buffer: one string for the whole result instead of a decoded copy, a line object and a
 * numbered string per line and their join (docs/adr/0517-an-ascii-file-is-numbered-from-its-bytes.md).
 * Undefined when the general path must take the file: non-ASCII bytes (decoding), a `\r` (CRLF
 * lines), a line longer than `maxLineChars` (its cut marker) or a text past `maxOutputChars`.
 */
export function numberAsciiLines(bytes: Buffer, options: AsciiLinesOptions): AsciiLines | undefined {
  const { limit, maxLineChars } = options
  // First pass, one loop over the bytes in JavaScript (a native call per line costs more at
  // these sizes): where the wanted lines end, how long their numbered text is, and whether
  // every byte is ASCII and no `\r`.
  let count = 0
  let position = 0
  let length = 0
  while (position < bytes.length && count < limit) {
    let end = position
    while (end < bytes.length) {
      const byte = bytes[end]!
      if (byte === NEWLINE) break
      if (byte === CARRIAGE_RETURN || byte > LAST_ASCII) return undefined
      end++
    }
    if (end - position > maxLineChars) return undefined
    count += 1
    length += (count === 1 ? 0 : 1) + prefixLength(count) + (end - position)
    position = end + 1
  }
  if (length > options.maxOutputChars) return undefined
  const hasMore = position < bytes.length
  // Second pass: prefix and line bytes copied into one buffer, then one string.
  const out = Buffer.allocUnsafe(length)
  let at = 0
  let from = 0
  for (let number = 1; number <= count; number++) {
    if (number > 1) out[at++] = NEWLINE
    at = writePrefix(out, at, number)
    while (from < bytes.length) {
      const byte = bytes[from++]!
      if (byte === NEWLINE) break
      out[at++] = byte
    }
  }
  return { content: out.toString('latin1', 0, at), count, hasMore }
}

function digitCount(number: number): number {
  let digits = 1
  for (let rest = number; rest >= 10; rest = Math.floor(rest / 10)) digits++
  return digits
}

function prefixLength(number: number): number {
  return Math.max(PREFIX_WIDTH, digitCount(number)) + 1
}

/** `String(number).padStart(6)` and a tab, written as bytes at `at` without a string; returns the next offset. */
function writePrefix(out: Buffer, at: number, number: number): number {
  const digits = digitCount(number)
  for (let pad = digits; pad < PREFIX_WIDTH; pad++) out[at++] = SPACE
  let rest = number
  for (let index = at + digits - 1; index >= at; index--) {
    out[index] = ZERO + (rest % 10)
    rest = Math.floor(rest / 10)
  }
  out[at + digits] = TAB
  return at + digits + 1
}
