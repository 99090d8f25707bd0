import { parse as tokenize } from 'shell-quote'
import { maxParsedCommandChars } from './parse-limit.js'
import { FD_MARKER, type ShellLevel, scanShellSource } from './scan-shell-source.js'
import { ShellScanError } from './shell-scan-error.js'

export type Redirection = { op: string; target: string }

/** One command of a list or pipeline, words after quote removal. */
export type SimpleCommand = { argv: string[]; envAssignments: string[]; redirections: Redirection[] }

/**
 * A command line split into its simple commands. `operators[i]` joins `commands[i]` and
 * `commands[i + 1]`; a trailing `&` stays as a last operator. Commands inside substitutions,
 * subshells and heredoc bodies are listed too (after the top-level ones, joined by `;`), so
 * nothing that runs is hidden. A redirection `op` carries its fd prefix: `2>&` with target `1`.
 * Expansions (`$VAR`, `$(…)`) appear in argv as their literal source text.
 */
export type ParsedShell = {
  commands: SimpleCommand[]
  operators: string[]
  hasVariable: boolean
  hasSubstitution: boolean
  hasUnquotedGlob: boolean
  hasSubshell: boolean
}

const CONTROL_OPERATORS = new Set([';', '&&', '||', '|', '&', '|&'])
const REDIRECT_OPERATORS = new Set(['>', '>>', '<', '>&', '<&', '&>', '&>>', '>|', '<<', '<<-', '<<<', '<>'])
// Control flow the walker cannot follow: a command line using them is not represented (null).
const RESERVED_WORDS = new Set(
  'if then else elif fi case esac for select while until do done function coproc { } ! [[ ]]'.split(' '),
)
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/
const FD_WORD = new RegExp(`^${FD_MARKER}(\\d+)${FD_MARKER}$`)

class Unrepresentable extends Error {}

/**
 * Parses a command line with shell-quote after a quote-aware pre-pass (see scanShellSource).
 * Returns null for anything unparsable or not represented faithfully (control flow keywords,
 * `$'…'`, unbalanced quotes or parentheses, an empty command, a command longer than
 * TOOLEXEC_MAX_PARSED_COMMAND_CHARS): callers treat null as "not read-only, compound".
 */
export function parseShell(command: string): ParsedShell | null {
  if (command.length > maxParsedCommandChars()) return null
  // One call parses its command for the scheduler, the path checks and each kind of rule: once.
  if (recent.has(command)) return recent.get(command) as ParsedShell | null
  const parsed = parseAnew(command)
  if (recent.size >= RECENT_PARSES) recent.delete(recent.keys().next().value as string)
  recent.set(command, parsed)
  return parsed
}

/** Commands parsed last, oldest first; their results are only read, never changed. */
const RECENT_PARSES = 16
const recent = new Map<string, ParsedShell | null>()

function parseAnew(command: string): ParsedShell | null {
  try {
    const scan = scanShellSource(command)
    const result: ParsedShell = { commands: [], operators: [], ...scan.facts, hasSubshell: false }
    for (const level of [scan.top, ...scan.inner]) {
      const parsed = parseLevel(level)
      if (parsed.commands.length === 0) throw new Unrepresentable()
      if (result.commands.length > 0) result.operators.push(';')
      result.commands.push(...parsed.commands)
      result.operators.push(...parsed.operators)
      result.hasSubshell ||= parsed.hasSubshell
      result.hasUnquotedGlob ||= parsed.hasGlob
    }
    for (const { argv } of result.commands) {
      if (argv[0] !== undefined && RESERVED_WORDS.has(argv[0])) return null
    }
    return result
  } catch (error) {
    if (error instanceof ShellScanError || error instanceof Unrepresentable) return null
    throw error
  }
}

/** More than one simple command: a list, a pipeline, or anything with a substitution inside. */
export function isCompound(parsed: ParsedShell): boolean {
  return parsed.commands.length > 1
}

const emptyCommand = (): SimpleCommand => ({ argv: [], envAssignments: [], redirections: [] })
const isEmpty = (command: SimpleCommand) =>
  command.argv.length === 0 && command.envAssignments.length === 0 && command.redirections.length === 0

type LevelResult = { commands: SimpleCommand[]; operators: string[]; hasSubshell: boolean; hasGlob: boolean }

function parseLevel(level: ShellLevel): LevelResult {
  // The pre-pass already turned every `$` into a quoted literal; this keeps shell-quote from expanding.
  const tokens = tokenize(level.normalized, (name) => `$${name}`)
  const commands: SimpleCommand[] = []
  const operators: string[] = []
  const groupStarts: number[] = []
  let current = emptyCommand()
  let closedGroup: number | null = null
  let pendingFd: string | null = null
  let pendingRedirect: string | null = null
  let hasSubshell = false
  let hasGlob = false
  let lastWasOperator = false

  const addWord = (word: string) => {
    if (word.includes(FD_MARKER)) throw new Unrepresentable()
    if (pendingRedirect !== null) {
      const redirection = { op: pendingRedirect, target: word }
      pendingRedirect = null
      if (closedGroup !== null)
        for (const command of commands.slice(closedGroup)) command.redirections.push(redirection)
      else current.redirections.push(redirection)
      return
    }
    if (closedGroup !== null) throw new Unrepresentable()
    if (current.argv.length === 0 && ASSIGNMENT.test(word)) current.envAssignments.push(word)
    else current.argv.push(word)
  }
  const finishCommand = () => {
    if (!isEmpty(current)) commands.push(current)
    else if (closedGroup === null) throw new Unrepresentable()
    current = emptyCommand()
  }

  for (const token of tokens) {
    if (typeof token === 'string' && FD_WORD.test(token)) {
      if (pendingFd !== null || pendingRedirect !== null) throw new Unrepresentable()
      pendingFd = FD_WORD.exec(token)?.[1] ?? null
      continue
    }
    if (typeof token !== 'string' && 'comment' in token) throw new Unrepresentable()
    const op = typeof token === 'string' ? null : token.op
    if (pendingFd !== null && (op === null || !REDIRECT_OPERATORS.has(op))) throw new Unrepresentable()
    if (op === null || op === 'glob') {
      if (op === 'glob') hasGlob = true
      addWord(typeof token === 'string' ? token : (token as { pattern: string }).pattern)
      lastWasOperator = false
      continue
    }
    if (pendingRedirect !== null) throw new Unrepresentable()
    if (REDIRECT_OPERATORS.has(op)) {
      pendingRedirect = (pendingFd ?? '') + op
      pendingFd = null
    } else if (CONTROL_OPERATORS.has(op)) {
      if (op === '|&') {
        pendingRedirect = '2>&'
        addWord('1')
      }
      finishCommand()
      operators.push(op === '|&' ? '|' : op)
      closedGroup = null
      lastWasOperator = true
      continue
    } else if (op === '(') {
      if (!isEmpty(current) || closedGroup !== null) throw new Unrepresentable()
      groupStarts.push(commands.length)
      hasSubshell = true
    } else if (op === ')') {
      const start = groupStarts.pop()
      if (start === undefined) throw new Unrepresentable()
      finishCommand()
      closedGroup = start
    } else {
      throw new Unrepresentable()
    }
    lastWasOperator = false
  }
  if (pendingFd !== null || pendingRedirect !== null || groupStarts.length > 0) throw new Unrepresentable()
  if (!isEmpty(current)) commands.push(current)
  else if (lastWasOperator) {
    const last = operators.pop()
    // `a;` and `a &` are complete; `a &&` and `a |` are not.
    if (last === '&') operators.push(last)
    else if (last !== ';') throw new Unrepresentable()
  }
  return { commands, operators, hasSubshell, hasGlob }
}
