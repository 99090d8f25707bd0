/** Helpers for spotting a forbidden option in an argv, the way getopt would read it. */

/** Arguments before `--` (after it every word is an operand, never an option). */
function optionWords(args: readonly string[]): string[] {
  const end = args.indexOf('--')
  return end === -1 ? [...args] : args.slice(0, end)
}

/** Operands (non-option words), skipping the values of options listed in `valueOptions`. */
export function operands(args: readonly string[], valueOptions: ReadonlySet<string> = new Set()): string[] {
  const result: string[] = []
  for (let index = 0; index < args.length; index += 1) {
    const word = args[index] as string
    if (word === '--') return [...result, ...args.slice(index + 1)]
    if (word.startsWith('-') && word !== '-') {
      if (valueOptions.has(word)) index += 1
      continue
    }
    result.push(word)
  }
  return result
}

/**
 * A long option whose name is `name` or an unambiguous-looking abbreviation of it: GNU getopt
 * accepts `--out=f` for `--output=f`, so any prefix of three letters or more counts.
 */
export function hasLongOption(args: readonly string[], names: readonly string[]): boolean {
  return optionWords(args).some((word) => {
    if (!word.startsWith('--') || word.length < 3) return false
    const given = word.slice(2).split('=')[0] as string
    return names.some((name) => name === given || (given.length >= 3 && name.startsWith(given)))
  })
}

/**
 * A short option letter inside a cluster (`-uo`, `-ofile`), stopping at letters that take a
 * value (the rest of the word is then that value, not more options).
 */
export function hasShortOption(args: readonly string[], letters: string, valueLetters = ''): boolean {
  return optionWords(args).some((word) => {
    if (!/^-[^-]/.test(word)) return false
    for (const letter of word.slice(1)) {
      if (letters.includes(letter)) return true
      if (valueLetters.includes(letter)) return false
    }
    return false
  })
}
