export type GrepBackend = 'rg' | 'grep'
export type GrepOutputMode = 'files_with_matches' | 'content' | 'count'

export type GrepSearch = {
  pattern: string
  /** Absolute path of the file or directory to search. */
  path: string
  glob?: string | undefined
  type?: string | undefined
  outputMode: GrepOutputMode
  caseInsensitive: boolean
  lineNumbers: boolean
  after?: number | undefined
  before?: number | undefined
  context?: number | undefined
  multiline: boolean
}

// File types for the GNU grep backend, named like ripgrep's (`rg --type-list`).
const GREP_TYPE_GLOBS: Record<string, string[]> = {
  js: ['*.js', '*.mjs', '*.cjs', '*.jsx'],
  ts: ['*.ts', '*.mts', '*.cts', '*.tsx'],
  py: ['*.py', '*.pyi'],
  rust: ['*.rs'],
  go: ['*.go'],
  java: ['*.java'],
  c: ['*.c', '*.h'],
  cpp: ['*.cpp', '*.cc', '*.cxx', '*.hpp', '*.hh', '*.hxx', '*.h'],
  cs: ['*.cs'],
  rb: ['*.rb'],
  php: ['*.php'],
  sh: ['*.sh', '*.bash', '*.zsh'],
  md: ['*.md', '*.markdown'],
  markdown: ['*.md', '*.markdown'],
  json: ['*.json'],
  yaml: ['*.yaml', '*.yml'],
  toml: ['*.toml'],
  html: ['*.html', '*.htm'],
  css: ['*.css', '*.scss', '*.sass', '*.less'],
  sql: ['*.sql'],
  xml: ['*.xml'],
  kotlin: ['*.kt', '*.kts'],
  swift: ['*.swift'],
}

function contextArguments(search: GrepSearch): string[] {
  if (search.outputMode !== 'content') return []
  const result: string[] = []
  if (search.context !== undefined) result.push('-C', String(search.context))
  if (search.after !== undefined) result.push('-A', String(search.after))
  if (search.before !== undefined) result.push('-B', String(search.before))
  return result
}

function ripgrepArguments(search: GrepSearch): string[] {
  const result = [
    '--no-config',
    '--hidden',
    '--glob',
    '!.git',
    '--max-columns',
    '500',
    '--max-columns-preview',
    '--sort',
    'path',
  ]
  if (search.outputMode === 'files_with_matches') result.push('--files-with-matches')
  else if (search.outputMode === 'count') result.push('--count', '--with-filename')
  else result.push('--with-filename', search.lineNumbers ? '--line-number' : '--no-line-number')
  if (search.caseInsensitive) result.push('--ignore-case')
  if (search.multiline) result.push('--multiline', '--multiline-dotall')
  if (search.glob !== undefined) result.push('--glob', search.glob)
  if (search.type !== undefined) result.push('--type', search.type)
  result.push(...contextArguments(search), '--regexp', search.pattern, '--', search.path)
  return result
}

function grepArguments(search: GrepSearch): string[] {
  // -P: Perl syntax is closest to ripgrep's (\d, \w, lazy quantifiers); -z lets it span lines.
  const result = ['--recursive', '--binary-files=without-match', '--exclude-dir=.git', '--perl-regexp']
  if (search.outputMode === 'files_with_matches') result.push('--files-with-matches')
  else if (search.outputMode === 'count') result.push('--count', '--with-filename')
  else result.push('--with-filename', ...(search.lineNumbers ? ['--line-number'] : []))
  if (search.caseInsensitive) result.push('--ignore-case')
  if (search.multiline) result.push('--null-data')
  if (search.glob !== undefined) result.push(`--include=${search.glob}`)
  if (search.type !== undefined) {
    const globs = GREP_TYPE_GLOBS[search.type]
    if (!globs)
      throw new Error(
        `Unknown file type ${search.type}. Known types: ${Object.keys(GREP_TYPE_GLOBS).join(', ')}. Or use glob.`,
      )
    for (const glob of globs) result.push(`--include=${glob}`)
  }
  result.push(...contextArguments(search), '--regexp', search.pattern, '--', search.path)
  return result
}

/** argv (without the program) for one search; never passed through a shell. */
export function searchArguments(backend: GrepBackend, search: GrepSearch): string[] {
  return backend === 'rg' ? ripgrepArguments(search) : grepArguments(search)
}
