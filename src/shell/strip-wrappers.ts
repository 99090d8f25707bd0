const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/
const DURATION = /^\d+(\.\d+)?[smhd]?$/
const INTEGER = /^[+-]?\d+$/

/** Options of `timeout` that take a value as the next word. */
const TIMEOUT_VALUE_OPTIONS = new Set(['-s', '--signal', '-k', '--kill-after'])

/**
 * Removes what only changes how a command runs, not what it is: leading `VAR=x` assignments and
 * the wrappers `timeout [opts] N`, `nice [-n N]`, `nohup`, `env [VAR=x…]`, `time [-p]`, `command [-p]`,
 * `exec [-cl] [-a NAME]`.
 * A wrapper used in a way it cannot read (`env -i`, `command -v`, `timeout` without a duration)
 * is left in place, so the result is then the wrapper itself: never a guess.
 */
export function stripWrappers(argv: readonly string[]): string[] {
  let rest = [...argv]
  for (;;) {
    const next = stripOne(rest)
    if (next === rest) return rest
    rest = next
  }
}

function stripOne(argv: string[]): string[] {
  const [head, ...tail] = argv
  if (head === undefined) return argv
  if (ASSIGNMENT.test(head)) return tail
  switch (head) {
    case 'nohup':
      return tail
    case 'exec':
      return stripExec(argv, tail)
    case 'time':
      return tail[0] === '-p' ? tail.slice(1) : tail
    case 'command':
      if (tail[0] === '-p') return tail.slice(1)
      return tail[0]?.startsWith('-') ? argv : tail
    case 'env': {
      let index = 0
      while (index < tail.length && ASSIGNMENT.test(tail[index] as string)) index += 1
      if (tail[index]?.startsWith('-')) return argv
      return tail.slice(index)
    }
    case 'nice':
      return stripNice(argv, tail)
    case 'timeout':
      return stripTimeout(argv, tail)
    default:
      return argv
  }
}

function stripExec(argv: string[], tail: string[]): string[] {
  let index = 0
  for (;;) {
    const word = tail[index]
    if (word === '-a') index += 2
    else if (word !== undefined && /^-[cl]+$/.test(word)) index += 1
    else if (word === '--') return tail.slice(index + 1)
    else break
  }
  // `exec` alone (or with options it cannot read) only changes redirections: left as it is.
  if (index >= tail.length || tail[index]?.startsWith('-')) return argv
  return tail.slice(index)
}

function stripNice(argv: string[], tail: string[]): string[] {
  const [first, second] = tail
  if (first === '-n' || first === '--adjustment')
    return second !== undefined && INTEGER.test(second) ? tail.slice(2) : argv
  if (first !== undefined && /^(-n[+-]?\d+|--adjustment=[+-]?\d+|-\d+)$/.test(first)) return tail.slice(1)
  if (first?.startsWith('-')) return argv
  return tail
}

function stripTimeout(argv: string[], tail: string[]): string[] {
  let index = 0
  while (index < tail.length) {
    const word = tail[index] as string
    if (TIMEOUT_VALUE_OPTIONS.has(word)) index += 2
    else if (/^(--signal=|--kill-after=|-s.|-k.)/.test(word)) index += 1
    else if (word === '--preserve-status' || word === '--foreground' || word === '-v' || word === '--verbose') {
      index += 1
    } else break
  }
  const duration = tail[index]
  if (duration === undefined || !DURATION.test(duration)) return argv
  return tail.slice(index + 1)
}
