import { catN, clip, editorMessages as messages } from './editor-messages.js'

/**
 * The editor's view of a file: all of it, or the lines of `view_range` (`[first, last]`, 1-based,
 * `last` -1 for the end), checked as the reference checks them, then `cat -n` of the text,
 * cut at `max_characters` when the tool has it.
 */
export function viewFile(
  content: string,
  shown: string,
  viewRange: readonly number[] | undefined,
  maxCharacters: number | undefined,
): string {
  if (viewRange === undefined) return catN(clip(content, maxCharacters), shown)
  if (viewRange.length !== 2) throw new Error(messages.viewRangeShape)
  const [first, last] = viewRange as [number, number]
  const lines = content.split('\n')
  if (first < 1 || first > lines.length) throw new Error(messages.viewRangeFirst(viewRange, first, lines.length))
  if (last > lines.length) throw new Error(messages.viewRangeSecondTooLarge(viewRange, last, lines.length))
  if (last !== -1 && last < first) throw new Error(messages.viewRangeSecondBeforeFirst(viewRange, last, first))
  const selected = (last === -1 ? lines.slice(first - 1) : lines.slice(first - 1, last)).join('\n')
  return catN(clip(selected, maxCharacters), shown, first)
}
