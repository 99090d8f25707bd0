import path from 'node:path'
import { isInsideAny } from '../../paths/is-inside.js'
import { resolveRealPath } from '../../paths/resolve-real-path.js'
import {
  type PathAccess,
  realWorkingDirectories,
  type WorkingDirectoryContext,
  workingDirectories,
} from '../../paths/working-directories.js'

export class PathConfinementError extends Error {
  override name = 'PathConfinementError'
}

/** A path the tool may use, or the refusal the model gets instead. */
export type ConfinedPath = { ok: true; realPath: string } | { ok: false; message: string }

/**
 * Resolves a path a model gave (absolute, or relative to the session cwd) to its real path and
 * checks it lies inside a working directory. Symlinks are resolved on both sides before the
 * check, including a symlinked parent of a file that does not exist yet. Throws a
 * PathConfinementError naming the allowed directories; nothing is read or written before that.
 */
export async function resolveConfinedPath(
  filePath: string,
  context: WorkingDirectoryContext,
  access: PathAccess,
): Promise<string> {
  if (filePath.trim() === '') throw new PathConfinementError('The path is empty: give an absolute path.')
  if (filePath.includes('\u0000')) throw new PathConfinementError('The path contains a NUL byte.')
  if (filePath.startsWith('~')) {
    throw new PathConfinementError(
      `The path ${filePath} starts with ~, which is not expanded: give an absolute path or one relative to ${context.cwd}.`,
    )
  }
  const absolutePath = path.resolve(context.cwd, filePath)
  const realPath = await resolveRealPath(absolutePath)
  if (isInsideAny(await realWorkingDirectories(context, access), realPath)) return realPath
  const allowed = workingDirectories(context, access)
  const shown = realPath === absolutePath ? absolutePath : `${absolutePath} (resolves to ${realPath})`
  if (access === 'write' && isInsideAny(await realWorkingDirectories(context, 'read'), realPath)) {
    throw new PathConfinementError(
      `The path ${shown} is in a read-only directory. Files may be written only inside: ${allowed.join(', ')}.`,
    )
  }
  throw new PathConfinementError(`The path ${shown} is outside the allowed working directories: ${allowed.join(', ')}.`)
}

/**
 * resolveConfinedPath with the refusal as a value, for validation: a path outside the working
 * directories is the model's to fix, not a fault. Any other error still throws.
 */
export async function tryResolveConfinedPath(
  filePath: string,
  context: WorkingDirectoryContext,
  access: PathAccess,
): Promise<ConfinedPath> {
  try {
    return { ok: true, realPath: await resolveConfinedPath(filePath, context, access) }
  } catch (error) {
    if (error instanceof PathConfinementError) return { ok: false, message: error.message }
    throw error
  }
}
