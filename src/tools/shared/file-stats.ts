import type { Stats } from 'node:fs'
import { lstat, stat } from 'node:fs/promises'
import { errorCode } from '../../paths/error-code.js'

/** Stats of an existing path, null when nothing is there. */
export async function statIfExists(realPath: string): Promise<Stats | null> {
  try {
    return await stat(realPath)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return null
    throw error
  }
}

/**
 * The files, most recently modified first (Glob's and Grep's order). lstat: a symlink sorts by
 * its own time, and a file gone since it was listed sorts last instead of failing the call.
 */
export async function newestFirst(files: readonly string[]): Promise<string[]> {
  const stamped = await Promise.all(
    files.map(async (file) => ({ file, mtimeMs: (await lstat(file).catch(() => null))?.mtimeMs ?? 0 })),
  )
  // Ties (same mtime) by name, so the order is stable.
  stamped.sort((a, b) => b.mtimeMs - a.mtimeMs || a.file.localeCompare(b.file))
  return stamped.map((entry) => entry.file)
}
