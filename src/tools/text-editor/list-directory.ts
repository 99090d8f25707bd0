import { readdir } from 'node:fs/promises'
import path from 'node:path'

/** A listing stops here: a directory of a million files is for Bash, not for a model's context. */
const MAX_ENTRIES = 1_000

/**
 * What `find PATH -maxdepth 2 -not -path '*\/.*'` prints (the reference's directory view): the
 * path itself, then every entry one and two levels down, hidden ones (and what is under them)
 * left out, symlinked directories not followed. Sorted, so the answer does not depend on the
 * file system's order. `shown` is the path as the model gave it; `realPath` is what is read.
 */
export async function listDirectory(realPath: string, shown: string): Promise<string> {
  const base = shown.length > 1 ? shown.replace(/\/+$/, '') : shown
  const lines = [base]
  let omitted = 0
  const visit = async (directory: string, display: string, depth: number) => {
    const entries = await readdir(directory, { withFileTypes: true }).catch(() => [])
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue
      if (lines.length > MAX_ENTRIES) {
        omitted += 1
        continue
      }
      const shownEntry = display === '/' ? `/${entry.name}` : `${display}/${entry.name}`
      lines.push(shownEntry)
      if (depth < 2 && entry.isDirectory()) await visit(path.join(directory, entry.name), shownEntry, depth + 1)
    }
  }
  await visit(realPath, base, 1)
  if (omitted > 0) lines.push(`... (${omitted} more entries not shown)`)
  return lines.join('\n')
}
