/**
 * A quote-aware pre-pass over a shell command. shell-quote tokenizes words, quotes and operators
 * well, but flattens or misreads what decides whether a command is safe: newlines become spaces,
 * backticks, `$'…'` and unterminated quotes pass silently, `a#b` turns into a comment, `2>x` reads
 * like `2 >x`, `\*` becomes a glob, heredoc bodies become words. This pass rewrites those
 * constructs into text shell-quote reads faithfully (expansions become single-quoted literals,
 * newlines become `;`, fd prefixes become markers) and records the facts it saw. Anything it
 * cannot represent throws a ShellScanError; the parser turns that into `null`.
 */

import { ShellScanError } from './shell-scan-error.js'
import { isBraceExpansion, matchArithmetic, readHeredocDelimiter } from './shell-spans.js'

/** What the whole command (every level) contains. Shared by all levels of one scan. */
type ShellFacts = { hasVariable: boolean; hasSubstitution: boolean; hasUnquotedGlob: boolean }

/** One level of shell text (the command itself, or the body of a `$(…)`, backtick or `<(…)`). */
export type ShellLevel = { normalized: string }

export type ShellScan = { top: ShellLevel; inner: ShellLevel[]; facts: ShellFacts }

/** Marks a numeric fd prefix (`2>`): shell-quote would otherwise split it off as a plain word. */
export const FD_MARKER = '\u0001'

const BOUNDARY = /[\s;&|()<>]/
const NAME_START = /[A-Za-z_]/
const NAME_CHAR = /[A-Za-z0-9_]/
const SPECIAL_PARAMETER = /[0-9@*#?$!-]/

type Heredoc = { delimiter: string; stripTabs: boolean; quoted: boolean }

type State = { source: string; facts: ShellFacts; inner: ShellLevel[] }

function quoteLiteral(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`
}

export function scanShellSource(source: string): ShellScan {
  if (source.includes('\u0000') || source.includes(FD_MARKER)) throw new ShellScanError('control characters')
  const state: State = {
    source,
    facts: { hasVariable: false, hasSubstitution: false, hasUnquotedGlob: false },
    inner: [],
  }
  const { level, end } = scanLevel(state, 0, 'top')
  if (end !== source.length) throw new ShellScanError('unbalanced parenthesis')
  return { top: level, inner: state.inner, facts: state.facts }
}

function scanNested(source: string, state: State): void {
  const nested: State = { source, facts: state.facts, inner: state.inner }
  const { level, end } = scanLevel(nested, 0, 'top')
  if (end !== source.length) throw new ShellScanError('unbalanced parenthesis')
  state.inner.push(level)
}

/** Scans from `start` to the end of the text ('top') or to the `)` closing this level ('paren'). */
function scanLevel(state: State, start: number, mode: 'top' | 'paren'): { level: ShellLevel; end: number } {
  const { source, facts } = state
  let out = ''
  let depth = 0
  let pending: Heredoc[] = []
  let index = start
  const atWordStart = (at: number) => at === start || BOUNDARY.test(source[at - 1] ?? ' ')
  while (index < source.length) {
    const char = source[index] as string
    const next = source[index + 1]
    if (char === "'") {
      const close = source.indexOf("'", index + 1)
      if (close === -1) throw new ShellScanError('unterminated single quote')
      out += source.slice(index, close + 1)
      index = close + 1
    } else if (char === '"') {
      const scanned = scanExpandingText(state, index + 1, '"')
      out += `"${scanned.out}"`
      index = scanned.end + 1
    } else if (char === '\\') {
      if (next === undefined) throw new ShellScanError('trailing backslash')
      if (next !== '\n') out += quoteLiteral(next)
      index += 2
    } else if (char === '$' || char === '`') {
      const expansion = scanExpansion(state, index, false)
      out += expansion.out
      index = expansion.end
    } else if (char === '\n') {
      index += 1
      if (pending.length > 0) index = consumeHeredocBodies(state, index, pending)
      pending = []
      const trimmed = out.trimEnd()
      out += trimmed === '' || /(&&|\|\||[|;&(])$/.test(trimmed) ? ' ' : ' ; '
    } else if (char === '#' && atWordStart(index)) {
      const lineEnd = source.indexOf('\n', index)
      index = lineEnd === -1 ? source.length : lineEnd
    } else if (char === '#') {
      out += "'#'"
      index += 1
    } else if (char === '(') {
      depth += 1
      out += char
      index += 1
    } else if (char === ')') {
      if (depth === 0 && mode === 'paren') {
        if (pending.length > 0) throw new ShellScanError('heredoc without body')
        return { level: { normalized: out }, end: index }
      }
      depth -= 1
      out += char
      index += 1
    } else if ((char === '<' || char === '>') && next === '(') {
      const inner = scanLevel(state, index + 2, 'paren')
      state.inner.push(inner.level)
      facts.hasSubstitution = true
      out += quoteLiteral(source.slice(index, inner.end + 1))
      index = inner.end + 1
    } else if (char === '<' || char === '>') {
      const before = source.slice(start, index)
      if (/(^|[\s;&|()<>])\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(before)) throw new ShellScanError('named fd redirection')
      const digits = /(^|[\s;&|()<>])(\d+)$/.exec(before)?.[2]
      if (digits !== undefined) out = `${out.slice(0, -digits.length)} ${FD_MARKER}${digits}${FD_MARKER} `
      if (char === '<' && next === '<' && source[index + 2] !== '<') {
        const stripTabs = source[index + 2] === '-'
        const delimiter = readHeredocDelimiter(source, index + (stripTabs ? 3 : 2))
        pending.push({ delimiter: delimiter.text, stripTabs, quoted: delimiter.quoted })
        out += `${stripTabs ? '<<-' : '<<'} ${quoteLiteral(delimiter.text)} `
        index = delimiter.end
      } else {
        out += char
        index += 1
      }
    } else {
      if (char === '*' || char === '?' || char === '[') facts.hasUnquotedGlob = true
      if (char === '{' && isBraceExpansion(source, index)) facts.hasUnquotedGlob = true
      // Tilde expansion reads $HOME: treat it like a variable.
      if (char === '~' && atWordStart(index)) facts.hasVariable = true
      out += char
      index += 1
    }
  }
  if (mode === 'paren') throw new ShellScanError('unterminated substitution')
  if (pending.length > 0) throw new ShellScanError('heredoc without body')
  return { level: { normalized: out }, end: index }
}

/**
 * Double-quoted text (terminator `"`) or an unquoted heredoc body (terminator null): copied as is
 * except expansions, which become literals spliced in by closing and reopening the quotes.
 */
function scanExpandingText(state: State, start: number, terminator: '"' | null): { out: string; end: number } {
  const { source } = state
  let out = ''
  let index = start
  while (index < source.length) {
    const char = source[index] as string
    if (char === terminator) return { out, end: index }
    if (char === '\\') {
      const next = source[index + 1]
      if (next === undefined) throw new ShellScanError('trailing backslash')
      if (next !== '\n') out += terminator === null ? next : char + next
      index += 2
    } else if (char === '$' || char === '`') {
      const expansion = scanExpansion(state, index, true)
      out += `"${expansion.out}"`
      index = expansion.end
    } else {
      out += char
      index += 1
    }
  }
  if (terminator !== null) throw new ShellScanError('unterminated double quote')
  return { out, end: index }
}

/** `$name`, `${…}`, `$(…)`, `$((…))`, backticks: records what it is and returns it as a literal. */
function scanExpansion(state: State, start: number, quoted: boolean): { out: string; end: number } {
  const { source, facts } = state
  const next = source[start + 1]
  let end: number
  if (source[start] === '`') {
    end = start + 1
    while (source[end] !== '`') {
      if (end >= source.length) throw new ShellScanError('unterminated backtick')
      end += source[end] === '\\' ? 2 : 1
    }
    scanNested(source.slice(start + 1, end).replace(/\\([\\$`])/g, '$1'), state)
    facts.hasSubstitution = true
    end += 1
  } else if (next === '(' && source[start + 2] === '(') {
    end = matchArithmetic(source, start + 3)
    facts.hasVariable = true
  } else if (next === '(') {
    const inner = scanLevel(state, start + 2, 'paren')
    state.inner.push(inner.level)
    facts.hasSubstitution = true
    end = inner.end + 1
  } else if (next === '{') {
    const close = source.indexOf('}', start)
    if (close === -1) throw new ShellScanError('unterminated parameter expansion')
    if (/[$`{\\'"]/.test(source.slice(start + 2, close))) throw new ShellScanError('nested parameter expansion')
    facts.hasVariable = true
    end = close + 1
  } else if (next !== undefined && NAME_START.test(next)) {
    end = start + 2
    while (end < source.length && NAME_CHAR.test(source[end] as string)) end += 1
    facts.hasVariable = true
  } else if (next !== undefined && SPECIAL_PARAMETER.test(next)) {
    end = start + 2
    facts.hasVariable = true
  } else if (!quoted && (next === "'" || next === '"')) {
    throw new ShellScanError('ANSI-C or locale quoting')
  } else {
    end = start + 1
  }
  return { out: quoteLiteral(source.slice(start, end)), end }
}

/** Skips the bodies of the heredocs opened on the line that just ended; scans unquoted ones. */
function consumeHeredocBodies(state: State, start: number, pending: Heredoc[]): number {
  const { source } = state
  let index = start
  for (const heredoc of pending) {
    let body = ''
    for (;;) {
      if (index >= source.length) throw new ShellScanError(`heredoc ${heredoc.delimiter} is not terminated`)
      const lineEnd = source.indexOf('\n', index)
      const line = source.slice(index, lineEnd === -1 ? source.length : lineEnd)
      index = lineEnd === -1 ? source.length : lineEnd + 1
      if ((heredoc.stripTabs ? line.replace(/^\t+/, '') : line) === heredoc.delimiter) break
      body += `${line}\n`
    }
    if (!heredoc.quoted) scanExpandingText({ ...state, source: body }, 0, null)
  }
  return index
}
