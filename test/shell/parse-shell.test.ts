// Pins parseShell: what each command line splits into, the expansion facts, and what is refused (null).
import { describe, expect, it } from 'vitest'
import { isCompound, parseShell } from '../../src/shell/parse-shell.js'
import { stripWrappers } from '../../src/shell/strip-wrappers.js'

const argvs = (command: string) => parseShell(command)?.commands.map((entry) => entry.argv)

describe('parseShell', () => {
  it('splits lists and pipelines and keeps the operators between commands', () => {
    const parsed = parseShell('a && b || c; d | e & f')
    expect(parsed?.commands.map((entry) => entry.argv)).toEqual([['a'], ['b'], ['c'], ['d'], ['e'], ['f']])
    expect(parsed?.operators).toEqual(['&&', '||', ';', '|', '&'])
    expect(parsed && isCompound(parsed)).toBe(true)
  })

  it('removes quotes like the shell does', () => {
    expect(argvs(`echo 'a b' "c d" e\\ f 'it'\\''s' "x\\"y"`)).toEqual([['echo', 'a b', 'c d', 'e f', "it's", 'x"y']])
    expect(parseShell('ls -la') && isCompound(parseShell('ls -la') as never)).toBe(false)
  })

  it('treats an unquoted newline as a separator, except after an operator', () => {
    expect(parseShell('echo hi\nls')?.operators).toEqual([';'])
    expect(parseShell('a &&\n  b')?.operators).toEqual(['&&'])
    expect(argvs('echo one \\\n two')).toEqual([['echo', 'one', 'two']])
  })

  it('strips comments without hiding the next line, and keeps # inside words', () => {
    expect(argvs('ls # rm -rf /\nrm x')).toEqual([['ls'], ['rm', 'x']])
    expect(argvs('echo a#b')).toEqual([['echo', 'a#b']])
  })

  it('records redirections with their fd prefix and tells `2>x` from `2 >x`', () => {
    expect(parseShell('ls 2>&1 >/dev/null')?.commands[0]?.redirections).toEqual([
      { op: '2>&', target: '1' },
      { op: '>', target: '/dev/null' },
    ])
    expect(parseShell('echo 2 > x')?.commands[0]).toEqual({
      argv: ['echo', '2'],
      envAssignments: [],
      redirections: [{ op: '>', target: 'x' }],
    })
    expect(parseShell('ls &>> log')?.commands[0]?.redirections).toEqual([{ op: '&>>', target: 'log' }])
    expect(parseShell('a |& b')?.commands[0]?.redirections).toEqual([{ op: '2>&', target: '1' }])
  })

  it('separates leading assignments from argv', () => {
    expect(parseShell('FOO=bar BAZ="a b" ls -l')?.commands[0]).toMatchObject({
      argv: ['ls', '-l'],
      envAssignments: ['FOO=bar', 'BAZ=a b'],
    })
  })

  it('flags variables (including braces, arithmetic and ~) but not single-quoted or escaped $', () => {
    for (const command of [
      'echo $HOME',
      'echo "x $HOME"',
      'echo $' + '{HOME}',
      'echo $?',
      'echo $((1+2))',
      'cat ~/.ssh/id',
    ]) {
      expect(parseShell(command)?.hasVariable, command).toBe(true)
    }
    for (const command of ["echo '$HOME'", 'echo \\$HOME', 'echo "\\$HOME"', 'echo cost $ 5']) {
      expect(parseShell(command)?.hasVariable, command).toBe(false)
    }
    expect(argvs('echo "a $HOME b"')).toEqual([['echo', 'a $HOME b']])
  })

  it('flags substitutions and lists the commands inside them', () => {
    for (const command of ['echo $(rm -rf x)', 'echo "a $(rm -rf x) b"', 'echo `rm -rf x`', 'x=$(rm -rf x)']) {
      const parsed = parseShell(command)
      expect(parsed?.hasSubstitution, command).toBe(true)
      expect(
        parsed?.commands.some((entry) => entry.argv[0] === 'rm'),
        command,
      ).toBe(true)
      expect(parsed && isCompound(parsed), command).toBe(true)
    }
    const diff = parseShell('diff <(ls a) <(ls b)')
    expect(diff?.hasSubstitution).toBe(true)
    expect(diff?.commands.map((entry) => entry.argv)).toEqual([
      ['diff', '<(ls a)', '<(ls b)'],
      ['ls', 'a'],
      ['ls', 'b'],
    ])
  })

  it('flags unquoted globs and brace expansion, not quoted or escaped ones', () => {
    for (const command of [
      'ls *.ts',
      'ls file?.txt',
      'ls [ab].txt',
      'echo {a,b}',
      'find . {-delete,-print}',
      'echo {1..3}',
    ]) {
      expect(parseShell(command)?.hasUnquotedGlob, command).toBe(true)
    }
    for (const command of ['ls "*.ts"', "ls '*.ts'", 'ls a\\*', 'find . -exec echo {} ;', 'echo "{a,b}"']) {
      expect(parseShell(command)?.hasUnquotedGlob, command).toBe(false)
    }
  })

  it('flags subshells and applies a redirection after a group to every command in it', () => {
    const parsed = parseShell('(cd x; ls) > out')
    expect(parsed?.hasSubshell).toBe(true)
    expect(parsed?.commands.map((entry) => entry.redirections)).toEqual([
      [{ op: '>', target: 'out' }],
      [{ op: '>', target: 'out' }],
    ])
  })

  it('skips heredoc bodies, but still sees substitutions in unquoted ones', () => {
    const quoted = parseShell("cat <<'EOF' | grep x\nhello $(rm -rf y)\nEOF\nls")
    expect(quoted?.commands.map((entry) => entry.argv)).toEqual([['cat'], ['grep', 'x'], ['ls']])
    expect(quoted?.hasSubstitution).toBe(false)
    const unquoted = parseShell('cat <<EOF\nhello $(rm -rf y)\nEOF')
    expect(unquoted?.hasSubstitution).toBe(true)
    expect(unquoted?.commands.map((entry) => entry.argv)).toEqual([['cat'], ['rm', '-rf', 'y']])
    const commit = parseShell('git commit -m "$(cat <<\'EOF\'\nfix ) paren\nEOF\n)"')
    expect(commit?.commands.map((entry) => entry.argv[0])).toEqual(['git', 'cat'])
  })

  it('keeps a trailing & as a last operator and drops a trailing ;', () => {
    expect(parseShell('sleep 1 &')?.operators).toEqual(['&'])
    expect(parseShell('ls;')?.operators).toEqual([])
  })

  it.each([
    ['empty', ''],
    ['only a comment', '# nothing'],
    ['unterminated double quote', 'echo "abc'],
    ['unterminated single quote', "echo 'abc"],
    ['unterminated substitution', 'echo $(ls'],
    ['unbalanced parenthesis', 'ls )'],
    ['dangling operator', 'ls &&'],
    ['leading operator', '| ls'],
    ['missing redirection target', 'ls >'],
    ['ANSI-C quoting', "echo $'\\x41'"],
    ['control flow', 'if true; then rm x; fi'],
    ['loop', 'for f in a b; do rm $f; done'],
    ['function definition', 'f() { ls; }'],
    ['brace group', '{ ls; }'],
    ['test keyword', '[[ a < b ]]'],
    ['negation', '! ls'],
    ['case terminator', 'ls ;;'],
    ['heredoc without end', 'cat <<EOF\nbody'],
    ['named fd', 'exec {fd}>file'],
    ['NUL byte', 'ls\u0000x'],
    ['substitution inside arithmetic', 'echo $(( $(id -u) + 1 ))'],
  ])('returns null for %s', (_name, command) => {
    expect(parseShell(command)).toBeNull()
  })
})

describe('stripWrappers', () => {
  it.each([
    [
      ['timeout', '10', 'ls', '-l'],
      ['ls', '-l'],
    ],
    [['timeout', '-s', 'KILL', '5s', 'ls'], ['ls']],
    [['timeout', '--kill-after=2', '1.5', 'ls'], ['ls']],
    [['nice', '-n', '10', 'ls'], ['ls']],
    [['nice', '-5', 'ls'], ['ls']],
    [['nice', 'ls'], ['ls']],
    [['nohup', 'ls'], ['ls']],
    [['env', 'A=1', 'B=2', 'ls'], ['ls']],
    [['time', '-p', 'ls'], ['ls']],
    [['command', 'ls'], ['ls']],
    [['FOO=bar', 'ls'], ['ls']],
    [
      ['nohup', 'timeout', '5', 'env', 'X=1', 'nice', 'git', 'status'],
      ['git', 'status'],
    ],
    [
      ['env', '-i', 'ls'],
      ['env', '-i', 'ls'],
    ],
    [
      ['command', '-v', 'ls'],
      ['command', '-v', 'ls'],
    ],
    [
      ['timeout', 'ls'],
      ['timeout', 'ls'],
    ],
    [
      ['nice', '-n', 'x', 'ls'],
      ['nice', '-n', 'x', 'ls'],
    ],
    [
      ['ls', 'timeout'],
      ['ls', 'timeout'],
    ],
    [[], []],
  ])('%j → %j', (argv, expected) => {
    expect(stripWrappers(argv)).toEqual(expected)
  })
})
