/**
 * A Bash rule's wildcard content compiled into literal pieces: `*` matches any run of characters
 * (spaces included), `\*` is a literal star. No regular expression: `a*a*a*…*b` against a long
 * command made V8's backtracking engine run for minutes on the event loop
 * (docs/adr/0096-bash-wildcards-without-regular-expressions.md).
 */
export function compileWildcard(content: string): (text: string) => boolean {
  const pieces: string[] = ['']
  for (let index = 0; index < content.length; index++) {
    const char = content[index] as string
    if (char === '\\' && content[index + 1] === '*') {
      pieces[pieces.length - 1] += '*'
      index++
    } else if (char === '*') {
      pieces.push('')
    } else {
      pieces[pieces.length - 1] += char
    }
  }
  return (text) => matchPieces(pieces, text)
}

/**
 * Leftmost-first matching of the pieces between stars: the first must start the text, the last
 * must end it, each middle one is taken at its earliest place after the previous one. Taking
 * the earliest place never loses a match (a later place leaves less text for the rest), so there
 * is nothing to backtrack: one `indexOf` per piece, time linear in the text for a fixed rule.
 */
function matchPieces(pieces: readonly string[], text: string): boolean {
  const first = pieces[0] as string
  if (pieces.length === 1) return text === first
  const last = pieces[pieces.length - 1] as string
  if (first.length + last.length > text.length || !text.startsWith(first) || !text.endsWith(last)) return false
  let position = first.length
  const end = text.length - last.length
  for (let index = 1; index < pieces.length - 1; index++) {
    const piece = pieces[index] as string
    const found = text.indexOf(piece, position)
    if (found === -1 || found + piece.length > end) return false
    position = found + piece.length
  }
  return true
}
