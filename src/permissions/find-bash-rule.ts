import { type ParsedShell, parseShell, type SimpleCommand } from '../shell/parse-shell.js'
import { stripWrappers } from '../shell/strip-wrappers.js'
import { type BashRulePattern, compileBashRulePattern, roughWords } from './bash-rule-pattern.js'
import type { PermissionRule, PermissionRuleBehavior } from './permission-rule.js'
import { RuleMatchWorkExceeded, withinRuleMatchWork } from './rule-match-work.js'

type CompiledRule = { rule: PermissionRule; test: BashRulePattern }

// Variables that change how a tool prints, not what it runs; others (PATH, LD_PRELOAD…) void an allow.
const SAFE_ENV = new Set(['NODE_ENV', 'CI', 'FORCE_COLOR', 'NO_COLOR', 'TZ', 'LANG', 'LC_ALL', 'TERM', 'DEBUG'])
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh'])
const RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}', 'time'])
const MAX_NESTING = 3

const patternCache = new Map<string, BashRulePattern>()

function compile(rule: PermissionRule): CompiledRule {
  const content = rule.value.ruleContent ?? ''
  let test = patternCache.get(content)
  if (!test) {
    if (patternCache.size > 1000) patternCache.clear()
    test = compileBashRulePattern(content)
    patternCache.set(content, test)
  }
  return { rule, test }
}

/** `bash -c 'rm -rf x'` and `eval 'rm -rf x'` run another script: deny rules look inside it. */
function nestedScript(argv: readonly string[]): string | undefined {
  const [head, flag, script] = argv
  if (head !== undefined && SHELLS.has(head) && flag === '-c' && script !== undefined) return script
  if (head === 'eval' && argv.length > 1) return argv.slice(1).join(' ')
  return undefined
}

/** The command word by its file name: `/usr/bin/rm` → `rm`; the same list when it names no path. */
function byBasename(words: string[]): string[] {
  const [head, ...rest] = words
  if (head === undefined || !head.includes('/') || head.endsWith('/')) return words
  return [head.slice(head.lastIndexOf('/') + 1), ...rest]
}

/** Rough pieces of unparsable text, split at anything that could separate commands. */
function roughCommands(command: string): string[][] {
  const pieces = [command, ...command.split(/&&|\|\||[;&|\n()`]|\$\(/)]
  return pieces.map((piece) => {
    const words = roughWords(piece)
    while (words.length > 0 && RESERVED.has(words[0] as string)) words.shift()
    return words
  })
}

/**
 * Deny and ask: every word list a rule may catch in the command, looking past env vars and
 * wrappers, inside `bash -c`/`eval` scripts, and — when the command does not parse — in rough
 * pieces of the raw text (fail closed). Computed once per command, whatever the number of rules.
 */
function denyCandidates(command: string, depth: number): string[][] {
  const parsed = parseShell(command)
  if (!parsed) {
    return roughCommands(command).flatMap((words) => {
      const stripped = stripWrappers(words)
      return [words, stripped, byBasename(stripped)]
    })
  }
  const candidates: string[][] = []
  for (const { argv, envAssignments } of parsed.commands) {
    const stripped = stripWrappers(argv)
    candidates.push(argv, stripped, [...envAssignments, ...argv])
    // `/bin/rm x` is `rm x` to a deny rule (never to an allow rule: a path may name any program).
    const named = byBasename(stripped)
    if (named !== stripped) candidates.push(named)
    const script = nestedScript(stripped)
    if (script !== undefined && depth < MAX_NESTING) candidates.push(...denyCandidates(script, depth + 1))
  }
  // The raw text too, so an exact rule written as a whole compound command still catches it.
  candidates.push(roughWords(command))
  return candidates
}

function isHarmlessRedirection({ op, target }: SimpleCommand['redirections'][number]): boolean {
  if (/^\d*[<>]&$/.test(op) && /^(\d+|-)$/.test(target)) return true
  if (op === '<<' || op === '<<-' || op === '<<<') return true
  return target === '/dev/null'
}

/** Words an allow rule may match for one simple command, or none when the command is not plain. */
function allowCandidates(command: SimpleCommand): string[][] {
  if (!command.redirections.every(isHarmlessRedirection)) return []
  const candidates = [[...command.envAssignments, ...command.argv]]
  const envNames = command.envAssignments.map((assignment) => assignment.split('=')[0]?.replace(/\+$/, '') ?? '')
  if (envNames.every((name) => SAFE_ENV.has(name))) candidates.push(command.argv)
  return candidates
}

/** Allow: EVERY simple command must be matched by some allow rule; expansions never are. */
function allowEveryPart(rules: readonly CompiledRule[], parsed: ParsedShell | null): PermissionRule | undefined {
  if (!parsed || parsed.hasSubstitution || parsed.hasVariable) return undefined
  let first: PermissionRule | undefined
  for (const simple of parsed.commands) {
    const candidates = allowCandidates(simple)
    const match = rules.find(({ test }) => candidates.some((words) => test(words)))
    if (!match) return undefined
    first ??= match.rule
  }
  return first
}

/**
 * The first Bash content rule of `rules` that applies to `command` for `behavior`:
 * - deny and ask rules match when ANY simple command matches, also after stripping env
 *   assignments and wrappers (`FOO=1 rm`, `timeout 5 rm`), inside `bash -c`/`eval` scripts,
 *   and — when the command does not parse — against rough pieces of the raw text (fail closed);
 * - allow rules must match EVERY simple command (`npm run test:*` never allows
 *   `npm run test && rm -rf x`), never match unparsable commands, variables, substitutions or
 *   redirections to files, and only see env assignments that are known to be harmless.
 */
export function findBashRule(
  rules: readonly PermissionRule[],
  command: string,
  behavior: PermissionRuleBehavior,
): PermissionRule | undefined {
  const compiled = rules.map(compile)
  if (behavior !== 'allow') {
    const candidates = denyCandidates(command, 0)
    // Over the bound a deny or ask rule could not be ruled out: the call is refused (fail closed).
    if (!withinRuleMatchWork(compiled.length, candidates))
      throw new RuleMatchWorkExceeded(compiled.length, command.length)
    return compiled.find(({ test }) => candidates.some((words) => test(words)))?.rule
  }
  const parsed = parseShell(command)
  // Over the bound no allow rule allows it: the call asks instead.
  if (!withinRuleMatchWork(compiled.length, parsed?.commands.flatMap(allowCandidates) ?? [])) return undefined
  return allowEveryPart(compiled, parsed)
}
