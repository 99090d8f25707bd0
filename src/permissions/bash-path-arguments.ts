import os from 'node:os'
import path from 'node:path'
import { parseShell } from '../shell/parse-shell.js'

/** A word that names a place on disk: absolute, home-relative, or climbing out with `..`. */
function pathOf(word: string): string | undefined {
  const value = word.startsWith('-') && word.includes('=') ? word.slice(word.indexOf('=') + 1) : word
  if (value.startsWith('/') || value === '~' || value.startsWith('~/')) return value
  if (value === '..' || value.startsWith('../') || value.includes('/../') || value.endsWith('/..')) return value
  return undefined
}

/**
 * Absolute paths a Bash command's arguments and redirections point at (`cat /etc/passwd`,
 * `ls ../other`), resolved against the cwd. Relative paths that stay below the cwd are left
 * out: only these can reach outside the working directories. Unparsable commands give null.
 */
export function bashPathArguments(command: string, cwd: string): string[] | null {
  const parsed = parseShell(command)
  if (!parsed) return null
  const words = parsed.commands.flatMap((simple) => [
    ...simple.argv.slice(1),
    ...simple.redirections.map((redirection) => redirection.target),
  ])
  const paths: string[] = []
  for (const word of words) {
    const found = pathOf(word)
    if (found === undefined || found === '/dev/null') continue
    const expanded = found === '~' || found.startsWith('~/') ? path.join(os.homedir(), found.slice(1)) : found
    paths.push(path.resolve(cwd, expanded))
  }
  return paths
}
