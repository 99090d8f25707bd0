import { closest, distance } from 'fastest-levenshtein'

/** Lower case without separators: `toolUses`, `tool-uses` and `tool_uses` fold alike. */
const fold = (text: string) => text.toLowerCase().replace(/[-_\s]/g, '')

/**
 * The candidate a slip most likely meant, or undefined when none is close: the same name in
 * another case or separator style (`toolUses` → `tool_uses`, `bash` → `Bash`), one the start of
 * the other (`timeout` → `timeout_ms`, `messages` → `message`), or a few letters apart.
 */
export function didYouMean(name: string, candidates: readonly string[]): string | undefined {
  if (name === '' || candidates.length === 0) return undefined
  const folded = fold(name)
  const same = candidates.find((candidate) => fold(candidate) === folded)
  if (same !== undefined) return same
  const start = candidates.find((candidate) => {
    const other = fold(candidate)
    return Math.min(other.length, folded.length) >= 4 && (other.startsWith(folded) || folded.startsWith(other))
  })
  if (start !== undefined) return start
  const best = closest(folded, candidates.map(fold))
  const index = candidates.findIndex((candidate) => fold(candidate) === best)
  // Two edits (a swapped pair, `wiat`) for names of four letters and more; one below.
  const allowed = folded.length < 4 ? 1 : Math.max(2, Math.floor(folded.length / 3))
  return distance(folded, best) <= allowed ? candidates[index] : undefined
}
