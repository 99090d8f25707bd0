import { realpathSync } from 'node:fs'
import { lstat, readlink } from 'node:fs/promises'
import path from 'node:path'
import { errorCode } from './error-code.js'

const MAX_SYMLINK_HOPS = 40

/**
 * The real path of `absolutePath`, even when it does not exist yet: the longest existing prefix
 * is resolved with realpath and the missing rest appended. A dangling symlink on the way is
 * followed to its target, so `link -> /elsewhere/new-file` resolves to `/elsewhere/new-file`
 * and a write through it cannot slip past a confinement check. A path that exists takes one
 * synchronous realpath(3), a few system calls and no threadpool round trip, as working
 * directories do (docs/adr/0312-existing-paths-resolve-synchronously.md); nothing is cached.
 */
export async function resolveRealPath(absolutePath: string, hops = 0): Promise<string> {
  if (hops > MAX_SYMLINK_HOPS) throw Object.assign(new Error('Too many levels of symbolic links'), { code: 'ELOOP' })
  try {
    return realpathSync.native(absolutePath)
  } catch (error) {
    const code = errorCode(error)
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error
  }
  const parent = path.dirname(absolutePath)
  if (parent === absolutePath) return absolutePath
  const stats = await lstat(absolutePath).catch(() => null)
  if (stats?.isSymbolicLink()) {
    const target = await readlink(absolutePath)
    return resolveRealPath(path.resolve(parent, target), hops + 1)
  }
  return path.join(await resolveRealPath(parent, hops), path.basename(absolutePath))
}

/**
 * Synchronous real path through the longest existing ancestor, for setup code (session creation)
 * that is not async. A dangling link is kept as a name under its real parent, not followed:
 * calls use the stricter async resolveRealPath, which follows it.
 */
export function resolveRealPathSync(target: string): string {
  const absolute = path.resolve(target)
  let existing = absolute
  const missing: string[] = []
  for (;;) {
    try {
      return path.join(realpathSync(existing), ...missing)
    } catch {
      const parent = path.dirname(existing)
      if (parent === existing) return absolute
      missing.unshift(path.basename(existing))
      existing = parent
    }
  }
}
