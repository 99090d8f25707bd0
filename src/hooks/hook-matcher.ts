/** Names only (letters, digits, `_`, `-`), optionally several joined by `|`: an exact-name list. */
const NAME_LIST = /^[A-Za-z0-9_-]+(\|[A-Za-z0-9_-]+)*$/

/**
 * Compiles a matcher the way Claude Code reads one: empty, missing or `*` matches every tool;
 * plain names (`Bash`, `Edit|Write`) match exactly; anything else is an unanchored regular
 * expression (`mcp__memory__.*`, `^Notebook`). An invalid expression matches nothing (the
 * settings schema rejects it at load, so this only guards hand-built configs).
 */
export function compileHookMatcher(matcher: string | undefined): (toolName: string) => boolean {
  const text = matcher?.trim() ?? ''
  if (text === '' || text === '*') return () => true
  if (NAME_LIST.test(text)) {
    const names = new Set(text.split('|'))
    return (toolName) => names.has(toolName)
  }
  let pattern: RegExp
  try {
    pattern = new RegExp(text)
  } catch {
    return () => false
  }
  return (toolName) => pattern.test(toolName)
}

/** The reason a matcher cannot compile, or undefined when it is fine. */
export function hookMatcherError(matcher: string): string | undefined {
  const text = matcher.trim()
  if (text === '' || text === '*' || NAME_LIST.test(text)) return undefined
  try {
    new RegExp(text)
    return undefined
  } catch (error) {
    return `not a valid regular expression: ${(error as Error).message}`
  }
}
