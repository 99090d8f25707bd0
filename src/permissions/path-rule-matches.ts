import os from 'node:os'
import path from 'node:path'
import ignore from 'ignore'
import { isInside } from '../paths/is-inside.js'

// Patterns that cover the root directory itself (a Glob or Grep over the whole cwd).
const WHOLE_TREE = new Set(['*', '**', '**/*', '/*', '/**', '/**/*'])

/** `//abs/**` is rooted at `/`, `~/x` at the home directory, anything else at the session cwd. */
function rootAndPattern(pattern: string, cwd: string): { root: string; pattern: string } {
  if (pattern.startsWith('//')) return { root: path.parse(cwd).root, pattern: pattern.slice(1) }
  if (pattern.startsWith('~/')) return { root: os.homedir(), pattern: pattern.slice(1) }
  return { root: cwd, pattern }
}

/**
 * Gitignore-style match (via the `ignore` package) of one rule pattern against an absolute,
 * already resolved path. Paths outside the pattern's root never match. `isDirectory` also
 * tries the `dir/` form so directory-only patterns (`secrets/`) catch a search rooted there.
 */
export function pathRuleMatches(rulePattern: string, absolutePath: string, cwd: string, isDirectory = false): boolean {
  const { root, pattern } = rootAndPattern(rulePattern.trim(), cwd)
  if (!isInside(root, absolutePath)) return false
  const relative = path.relative(root, absolutePath)
  if (relative === '') return WHOLE_TREE.has(pattern)
  const posix = relative.split(path.sep).join('/')
  const matcher = ignore().add(pattern)
  return matcher.ignores(posix) || (isDirectory && matcher.ignores(`${posix}/`))
}
