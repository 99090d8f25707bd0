import { type Stats, statSync } from 'node:fs'
import { lstat } from 'node:fs/promises'
import { lstatMtimes } from './lstat-mtimes.js'

/**
 * Listings up to this size are stamped synchronously: one lstat is a few system calls, less than
 * a threadpool round trip, and 256 of them hold the event loop well under a millisecond. Larger
 * listings keep the threadpool so the loop is never held long (docs/adr/0313-small-listings-stat-synchronously.md).
 */
const SYNC_STAMP_LIMIT = 256

/** Stats of an existing path, null when nothing is there (one synchronous stat, docs/adr/0312). */
export async function statIfExists(realPath: string): Promise<Stats | null> {
  return statSync(realPath, { throwIfNoEntry: false }) ?? null
}

/**
 * The files, most recently modified first (Glob's and Grep's order). lstat: a symlink sorts by
 * its own time, and a file gone since it was listed sorts last instead of failing the call.
 */
export async function newestFirst(files: readonly string[]): Promise<string[]> {
  const stamped =
    files.length <= SYNC_STAMP_LIMIT
      ? stampedSynchronously(files)
      : await Promise.all(
          files.map(async (file) => ({ file, mtimeMs: (await lstat(file).catch(() => null))?.mtimeMs ?? 0 })),
        )
  // Ties (same mtime) by name, so the order is stable.
  stamped.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file))
  return stamped.map((entry) => entry.file)
}

/** The files with their own times, read in this turn (docs/adr/0313, without `Stats` objects: 0585). */
function stampedSynchronously(files: readonly string[]): { file: string; mtimeMs: number }[] {
  const times = lstatMtimes(files)
  return files.map((file, index) => ({ file, mtimeMs: times[index] as number }))
}
