import { hasLongOption, hasShortOption, operands } from './option-checks.js'

/** Subcommands that only read, whatever their arguments (beyond the output-file check below). */
const READ_ONLY_SUBCOMMANDS = new Set([
  'status',
  'log',
  'diff',
  'show',
  'rev-parse',
  'ls-files',
  'blame',
  'describe',
  'shortlog',
  'ls-tree',
  'cat-file',
  'rev-list',
  'merge-base',
  'name-rev',
  'for-each-ref',
  'show-ref',
  'count-objects',
  'check-ignore',
  'version',
  'diff-tree',
  'diff-files',
  'diff-index',
  'whatchanged',
  'cherry',
  'ls-remote',
])

const BRANCH_VALUE_OPTIONS = new Set([
  '--contains',
  '--no-contains',
  '--merged',
  '--no-merged',
  '--points-at',
  '--sort',
  '--format',
  '--color',
])
const BRANCH_WRITE_LONG = [
  'delete',
  'move',
  'copy',
  'force',
  'set-upstream-to',
  'unset-upstream',
  'edit-description',
  'track',
  'no-track',
  'create-reflog',
]

function isListing(args: readonly string[]): boolean {
  return args.includes('-l') || args.includes('--list')
}

/** `git branch` lists unless given a name to create or a flag that deletes, moves or copies. */
function branchIsReadOnly(args: readonly string[]): boolean {
  if (hasShortOption(args, 'dDmMcCfu', '') || hasLongOption(args, BRANCH_WRITE_LONG)) return false
  return isListing(args) || operands(args, BRANCH_VALUE_OPTIONS).length === 0
}

function tagIsReadOnly(args: readonly string[]): boolean {
  if (
    hasShortOption(args, 'dasfmFeu', '') ||
    hasLongOption(args, ['delete', 'annotate', 'sign', 'force', 'message', 'file', 'edit'])
  ) {
    return false
  }
  return isListing(args) || operands(args, BRANCH_VALUE_OPTIONS).length === 0
}

/**
 * Read-only git invocations. Global options that change where git looks or what it runs
 * (`-C`, `-c key=value` can set a pager or fsmonitor command, `--git-dir`, `--exec-path`) are
 * refused; `--output` (diff/log/show write a file with it) is refused everywhere.
 */
export function isReadOnlyGit(args: readonly string[]): boolean {
  let index = 0
  while (args[index]?.startsWith('-')) {
    if (!['--no-pager', '-P', '--no-optional-locks', '--no-replace-objects'].includes(args[index] as string))
      return false
    index += 1
  }
  const subcommand = args[index]
  const rest = args.slice(index + 1)
  if (subcommand === undefined || hasLongOption(rest, ['output'])) return false
  if (READ_ONLY_SUBCOMMANDS.has(subcommand)) return true
  switch (subcommand) {
    case 'branch':
      return branchIsReadOnly(rest)
    case 'tag':
      return tagIsReadOnly(rest)
    case 'grep':
      return !hasShortOption(rest, 'O', 'efABC') && !hasLongOption(rest, ['open-files-in-pager'])
    case 'remote':
      return rest.length === 0 || ['-v', '--verbose', 'show', 'get-url'].includes(rest[0] as string)
    case 'stash':
      return rest[0] === 'list' || rest[0] === 'show'
    case 'worktree':
      return rest[0] === 'list'
    case 'reflog':
      return rest.length === 0 || rest[0] === 'show' || (rest[0]?.startsWith('-') ?? false)
    case 'config':
      return ['--get', '--get-all', '--get-regexp', '--list', '-l'].includes(rest[0] as string)
    default:
      return false
  }
}
