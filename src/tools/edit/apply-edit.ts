export type EditRequest = { oldString: string; newString: string; replaceAll: boolean }

export type EditOutcome =
  | { ok: true; content: string; replacements: number; firstIndex: number; insertedLength: number }
  | { ok: false; message: string }

function countOccurrences(haystack: string, needle: string): number {
  let count = 0
  for (let index = haystack.indexOf(needle); index !== -1; index = haystack.indexOf(needle, index + needle.length)) {
    count += 1
  }
  return count
}

function shorten(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text
}

/**
 * Replaces an exact, unique occurrence (or every one with replaceAll). A file with CRLF line
 * ends also matches an old_string written with plain `\n`, since Read shows lines without `\r`.
 * Never uses String.replace: `$&` and friends in new_string must stay literal.
 */
export function applyEdit(content: string, request: EditRequest, displayPath: string): EditOutcome {
  let { oldString, newString } = request
  let count = countOccurrences(content, oldString)
  if (count === 0 && content.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r')) {
    const crlfOld = oldString.replaceAll('\n', '\r\n')
    const crlfCount = countOccurrences(content, crlfOld)
    if (crlfCount > 0) {
      oldString = crlfOld
      newString = newString.replaceAll('\r\n', '\n').replaceAll('\n', '\r\n')
      count = crlfCount
    }
  }
  if (count === 0) {
    return {
      ok: false,
      message:
        `String to replace not found in ${displayPath}. old_string must match the file exactly, including ` +
        'whitespace and indentation, and without the line-number prefixes Read shows. Read the file again ' +
        `to see its current content.\nString: ${shorten(request.oldString)}`,
    }
  }
  if (count > 1 && !request.replaceAll) {
    return {
      ok: false,
      message:
        `Found ${count} matches of the string to replace in ${displayPath}, but replace_all is false. ` +
        'To replace every occurrence set replace_all to true; to replace only one, add surrounding lines ' +
        `to old_string so it matches exactly once.\nString: ${shorten(request.oldString)}`,
    }
  }
  const firstIndex = content.indexOf(oldString)
  const updated = request.replaceAll
    ? content.split(oldString).join(newString)
    : content.slice(0, firstIndex) + newString + content.slice(firstIndex + oldString.length)
  return { ok: true, content: updated, replacements: count, firstIndex, insertedLength: newString.length }
}

/** How many line feeds `content` has from `start` up to (not including) `end`. */
function lineFeedsBetween(content: string, start: number, end: number): number {
  let count = 0
  for (let at = content.indexOf('\n', start); at !== -1 && at < end; at = content.indexOf('\n', at + 1)) count += 1
  return count
}

/** One line as Read shows it: its number, a tab, the line without a trailing `\r`, cut past 2,000 characters. */
function numberedLine(number: number, line: string): string {
  const text = line.endsWith('\r') ? line.slice(0, -1) : line
  return `${String(number).padStart(6)}\t${text.length > 2000 ? `${text.slice(0, 2000)}…` : text}`
}

/**
 * A few numbered lines around the first change, so the model sees the result without a Read.
 * Only the lines shown are cut out of the text: the file is never split into all its lines,
 * which cost an edit of a large file a copy of every line (docs/adr/0587-an-edit-snippet-cuts-only-the-lines-it-shows.md).
 */
export function editSnippet(content: string, firstIndex: number, insertedLength: number, context = 3): string {
  const startLine = 1 + lineFeedsBetween(content, 0, firstIndex)
  const endLine = startLine + lineFeedsBetween(content, firstIndex, firstIndex + insertedLength)
  const from = Math.max(1, startLine - context)
  const last = Math.min(endLine + context, from + 40)
  let at = 0
  for (let line = 1; line < from; line += 1) at = content.indexOf('\n', at) + 1
  const shown: string[] = []
  for (let number = from; number <= last; number += 1) {
    const end = content.indexOf('\n', at)
    shown.push(numberedLine(number, end === -1 ? content.slice(at) : content.slice(at, end)))
    // The file's last line: there is no line after it to show.
    if (end === -1) break
    at = end + 1
  }
  return shown.join('\n')
}
