import { ShellScanError } from './shell-scan-error.js'

// Spans of shell text whose end must be found before scanning goes on. Pure functions of the text.

/** Index just past the `))` closing `$((`; expansions inside arithmetic are refused. */
export function matchArithmetic(source: string, start: number): number {
  let depth = 2
  for (let index = start; index < source.length; index += 1) {
    const char = source[index]
    if (char === '$' || char === '`') {
      if (source[index + 1] === '(' || char === '`') throw new ShellScanError('substitution inside arithmetic')
    } else if (char === '(') depth += 1
    else if (char === ')') {
      depth -= 1
      if (depth === 0) return index + 1
    }
  }
  throw new ShellScanError('unterminated arithmetic expansion')
}

/** Whether the `{` at `start` opens a brace expansion (`{a,b}`, `{1..3}`), which expands like a glob. */
export function isBraceExpansion(source: string, start: number): boolean {
  let depth = 0
  let hasList = false
  for (let index = start; index < source.length; index += 1) {
    const char = source[index] as string
    if (char === "'" || char === '"') {
      const close = source.indexOf(char, index + 1)
      if (close === -1) return false
      index = close
    } else if (char === '\\') index += 1
    else if (/[\s;&|<>()]/.test(char)) return false
    else if (char === '{') depth += 1
    else if (char === '}') {
      depth -= 1
      if (depth === 0) return hasList
    } else if (depth === 1 && (char === ',' || source.startsWith('..', index))) hasList = true
  }
  return false
}

/** The word after `<<`: its text with quotes removed, and whether any quoting was used (no expansion then). */
export function readHeredocDelimiter(source: string, start: number): { text: string; quoted: boolean; end: number } {
  let index = start
  while (source[index] === ' ' || source[index] === '\t') index += 1
  let text = ''
  let quoted = false
  while (index < source.length && !/[\s;&|<>()]/.test(source[index] as string)) {
    const char = source[index] as string
    if (char === "'" || char === '"') {
      const close = source.indexOf(char, index + 1)
      if (close === -1) throw new ShellScanError('unterminated heredoc delimiter')
      text += source.slice(index + 1, close)
      quoted = true
      index = close + 1
    } else if (char === '\\') {
      text += source[index + 1] ?? ''
      quoted = true
      index += 2
    } else if (char === '$' || char === '`') {
      throw new ShellScanError('expansion in heredoc delimiter')
    } else {
      text += char
      index += 1
    }
  }
  if (text === '') throw new ShellScanError('missing heredoc delimiter')
  return { text, quoted, end: index }
}
