import path from 'node:path'
import { resolveRealPath } from './resolve-real-path.js'

/** `read` also admits the tenant's blob directory (read-only); `write` only the working directories. */
export type PathAccess = 'read' | 'write'

/** The parts of a call's context that say where it may work. */
export type WorkingDirectoryContext = {
  readonly cwd: string
  readonly permissionContext: { readonly additionalWorkingDirectories: readonly string[] }
  readonly environment?: { readonly blobDirectory?: string }
}

/**
 * The session cwd, the additional working directories, then (for `read`) the blob directory,
 * as the session holds them: the list messages name.
 */
export function workingDirectories(context: WorkingDirectoryContext, access: PathAccess): string[] {
  const directories = [context.cwd, ...context.permissionContext.additionalWorkingDirectories]
  const blobs = context.environment?.blobDirectory
  if (access === 'read' && blobs) directories.push(blobs)
  return directories
}

/**
 * The same list as real paths, for containment checks. The cwd and the blob directory (the
 * service's own) are resolved now. The additional directories were made real when the session
 * was created and are NOT resolved again: a symlink planted there since cannot widen what the
 * session was granted (docs/adr/0066-one-working-directory-list.md).
 */
export async function realWorkingDirectories(context: WorkingDirectoryContext, access: PathAccess): Promise<string[]> {
  const blobs = context.environment?.blobDirectory
  return [
    await resolveRealPath(path.resolve(context.cwd)),
    ...context.permissionContext.additionalWorkingDirectories.map((directory) => path.resolve(directory)),
    ...(access === 'read' && blobs ? [await resolveRealPath(path.resolve(blobs))] : []),
  ]
}
