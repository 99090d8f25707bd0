import path from 'node:path'
import { resolveRealPath } from '../../paths/resolve-real-path.js'
import type { ToolUseContext } from '../../tool/tool.js'

/** `read` also admits the tenant's blob directory; `write` admits only the working directories. */
export type PathAccess = 'read' | 'write'

export class PathConfinementError extends Error {
  override name = 'PathConfinementError'
}

type ConfinementContext = Pick<ToolUseContext, 'cwd' | 'permissionContext' | 'environment'>

/** The session cwd and the additional working directories, then (for reading) the blob directory. */
export function workingDirectories(context: ConfinementContext, access: PathAccess): string[] {
  const directories = [context.cwd, ...context.permissionContext.additionalWorkingDirectories]
  if (access === 'read' && context.environment.blobDirectory) directories.push(context.environment.blobDirectory)
  return directories
}

function isInside(candidate: string, directory: string): boolean {
  const relative = path.relative(directory, candidate)
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))
}

/**
 * Resolves a path a model gave (absolute, or relative to the session cwd) to its real path and
 * checks it lies inside a working directory. Symlinks are resolved on both sides before the
 * check, including a symlinked parent of a file that does not exist yet. Throws a
 * PathConfinementError naming the allowed directories; nothing is read or written before that.
 */
export async function resolveConfinedPath(
  filePath: string,
  context: ConfinementContext,
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
  const readable = workingDirectories(context, 'read')
  const allowed = workingDirectories(context, access)
  for (const directory of allowed) {
    if (isInside(realPath, await resolveRealPath(path.resolve(directory)))) return realPath
  }
  const shown = realPath === absolutePath ? absolutePath : `${absolutePath} (resolves to ${realPath})`
  if (access === 'write') {
    for (const directory of readable) {
      if (isInside(realPath, await resolveRealPath(path.resolve(directory)))) {
        throw new PathConfinementError(
          `The path ${shown} is in a read-only directory. Files may be written only inside: ${allowed.join(', ')}.`,
        )
      }
    }
  }
  throw new PathConfinementError(`The path ${shown} is outside the allowed working directories: ${allowed.join(', ')}.`)
}
