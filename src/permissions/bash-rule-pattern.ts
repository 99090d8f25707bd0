import { parseShell } from '../shell/parse-shell.js'
import { compileWildcard } from './wildcard-match.js'

/** Tests one simple command (its words, already unquoted) against one Bash rule's content. */
export type BashRulePattern = (words: readonly string[]) => boolean

function splitWords(text: string): string[] {
  return text.trim().split(/\s+/).filter(Boolean)
}

/** A rule's words as the shell reads them (`echo "a b"` → echo, a b), else split on whitespace. */
function ruleWords(text: string): string[] {
  const parsed = parseShell(text)
  const only = parsed?.commands.length === 1 ? parsed.commands[0] : undefined
  if (!only || only.redirections.length > 0 || parsed?.hasVariable || parsed?.hasSubstitution) return splitWords(text)
  return [...only.envAssignments, ...only.argv]
}

// A command's words are tested against every rule: joined once per word list, not once per rule.
const joinedWords = new WeakMap<readonly string[], string>()
function joined(words: readonly string[]): string {
  let text = joinedWords.get(words)
  if (text === undefined) {
    text = words.join(' ')
    joinedWords.set(words, text)
  }
  return text
}

function hasWildcard(content: string): boolean {
  return /(^|[^\\])\*/.test(content)
}

/** `git * --force` matches `git push --force`; `\*` is a literal star; a trailing ` *` may be absent. */
function wildcardPattern(content: string): (text: string) => boolean {
  const words = splitWords(content).join(' ')
  const whole = compileWildcard(words)
  // `git *` also matches a bare `git`, as a user writing it would expect.
  if (!words.endsWith(' *')) return whole
  const bare = compileWildcard(words.slice(0, -2))
  return (text) => whole(text) || bare(text)
}

/**
 * Compiles a Bash rule's content:
 * - `npm run test:*` is a prefix rule: the command's first words must be exactly
 *   `npm`, `run`, `test` (so `npm run test -- --watch` matches, `npm run test:unit` does not);
 * - any other unescaped `*` is a wildcard over the words joined by single spaces;
 * - anything else must equal the command word for word.
 */
export function compileBashRulePattern(content: string): BashRulePattern {
  const trimmed = content.trim()
  if (trimmed.endsWith(':*') && !trimmed.endsWith('\\:*')) {
    const prefix = ruleWords(trimmed.slice(0, -2))
    return (words) => prefix.length > 0 && prefix.every((word, index) => words[index] === word)
  }
  if (hasWildcard(trimmed)) {
    const pattern = wildcardPattern(trimmed)
    return (words) => pattern(joined(words))
  }
  const exact = ruleWords(trimmed).join(' ')
  return (words) => joined(words) === exact
}

/** Words of a raw string, splitting on whitespace only: the fail-closed view of unparsable text. */
export function roughWords(text: string): string[] {
  return splitWords(text).map((word) => word.replace(/^(['"])(.*)\1$/s, '$2'))
}
