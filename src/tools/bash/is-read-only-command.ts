import { parseShell, type Redirection, type SimpleCommand } from '../../shell/parse-shell.js'
import { stripWrappers } from '../../shell/strip-wrappers.js'
import { isReadOnlyGit } from './git-read-only.js'
import { hasLongOption, hasShortOption, operands } from './option-checks.js'

type ArgsCheck = (args: readonly string[]) => boolean

const always: ArgsCheck = () => true

// Readers none of whose options write a file or run a program.
const PLAIN_READERS =
  'ls cat head tail wc stat diff cut tr grep egrep fgrep echo pwd whoami which sleep true false seq jq cd basename dirname realpath readlink nl du df id uname comm md5sum sha1sum sha256sum'

/** Known read-only commands, each with a check of the arguments that would make it write or run code. */
const READ_ONLY_COMMANDS: Record<string, ArgsCheck> = {
  ...Object.fromEntries(PLAIN_READERS.split(' ').map((name) => [name, always])),
  // `-o FILE` writes; `--compress-program` runs a program.
  sort: (args) => !hasShortOption(args, 'o', 'kStT') && !hasLongOption(args, ['output', 'compress-program']),
  // A second operand is an output file.
  uniq: (args) => operands(args, new Set(['-f', '-s', '-w'])).length <= 1,
  // `--pre` runs a preprocessor command on every file.
  rg: (args) => !hasLongOption(args, ['pre']),
  // `-s`/`--set` and a bare MMDDhhmm operand set the clock.
  date: (args) =>
    !hasShortOption(args, 's', 'dfrI') &&
    !hasLongOption(args, ['set']) &&
    operands(args, new Set(['-d', '-f', '-r', '--date', '--file', '--reference'])).every((word) =>
      word.startsWith('+'),
    ),
  // `-C` compiles a magic file (writes).
  file: (args) => !hasShortOption(args, 'C', 'emfFP') && !hasLongOption(args, ['compile']),
  find: (args) =>
    !args.some(
      (word) => ['-delete', '-exec', '-execdir', '-ok', '-okdir', '-fls'].includes(word) || word.startsWith('-fprint'),
    ),
  git: isReadOnlyGit,
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/

/** `2>&1`, `>&2`, `<&0`, `>&-`, `>/dev/null`, input redirections and heredocs write no file. */
function isHarmlessRedirection({ op, target }: Redirection): boolean {
  const bare = op.replace(/^\d+/, '')
  if (bare === '<' || bare === '<<' || bare === '<<-' || bare === '<<<') return true
  if ((bare === '>&' || bare === '<&') && /^(\d+|-)$/.test(target)) return true
  return ['>', '>>', '&>', '&>>', '>|', '>&'].includes(bare) && target === '/dev/null'
}

function isReadOnlySimpleCommand(command: SimpleCommand): boolean {
  // An assignment can change what runs (`LD_PRELOAD=x ls`, `GIT_PAGER=sh git log`).
  if (command.envAssignments.length > 0) return false
  if (!command.redirections.every(isHarmlessRedirection)) return false
  const argv = stripWrappers(command.argv)
  if (command.argv.slice(0, command.argv.length - argv.length).some((word) => ASSIGNMENT.test(word))) return false
  const [name, ...args] = argv
  if (name === undefined) return false
  // Own keys only: `constructor` or `toString` are not commands we know.
  if (!Object.hasOwn(READ_ONLY_COMMANDS, name)) return false
  return (READ_ONLY_COMMANDS[name] as ArgsCheck)(args)
}

/**
 * docs/design.md §9: true only when every command of the list or pipeline is a known read-only command
 * with no file redirection, no `$VAR`, no command substitution, no unquoted glob, no
 * backgrounding, and no `cd` combined with `git` (a repository's config can run commands).
 * Anything the parser cannot represent faithfully is not read-only.
 */
export function isReadOnlyCommand(command: string): boolean {
  const parsed = parseShell(command)
  if (parsed === null) return false
  if (parsed.hasVariable || parsed.hasSubstitution || parsed.hasUnquotedGlob) return false
  if (parsed.operators.includes('&')) return false
  const names = parsed.commands.map((entry) => stripWrappers(entry.argv)[0])
  if (names.includes('cd') && names.includes('git')) return false
  return parsed.commands.every(isReadOnlySimpleCommand)
}
