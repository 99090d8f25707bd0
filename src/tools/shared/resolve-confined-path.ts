import { closeSync, type Stats } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import path from 'node:path'
import { errorCode } from '../../paths/error-code.js'
import { isInside, isInsideAny } from '../../paths/is-inside.js'
import { type NamedFile, nameExistingFile, openNamedFile } from '../../paths/named-file.js'
import { openFileInside, openFileInsideSync, PathChangedError } from '../../paths/open-inside.js'
import { existingRealDirectory, knownRealPath, realDirectory, rememberRealPath } from '../../paths/real-directory.js'
import {
  type PathAccess,
  realWorkingDirectories,
  realWorkspaceRoot,
  type WorkingDirectoryContext,
  WorkingDirectoryEscapeError,
  workingDirectories,
} from '../../paths/working-directories.js'
import type { ConfinedResolution } from './validated-paths.js'

export class PathConfinementError extends Error {
  override name = 'PathConfinementError'
}

/** A path the tool may use (and the real working directories it was checked against), or the refusal the model gets instead. */
export type ConfinedPath = ({ ok: true } & ConfinedResolution) | { ok: false; message: string }

/** Linux caps one path component at 255 bytes and a path at 4,095: longer ones are refused before any system call. */
const MAX_NAME_BYTES = 255
const MAX_PATH_BYTES = 4_095
/** UTF-8 spends at most 3 bytes on one UTF-16 unit (a surrogate pair's 4 bytes are two units, a lone one becomes U+FFFD's 3). */
const MAX_UTF8_PER_UNIT = 3
const SLASH = 0x2f
const BACKSLASH = 0x5c

/**
 * Whether a component between separators (`/`, or a backslash as before) is longer than
 * MAX_NAME_BYTES in UTF-8. One scan, no array: only a component of more than 85 units can be too
 * long, and only such a component is measured
 * (docs/adr/0604-a-paths-components-are-measured-in-one-scan.md).
 */
export function hasLongComponent(filePath: string): boolean {
  let start = 0
  for (let index = 0; index <= filePath.length; index++) {
    const code = index === filePath.length ? SLASH : filePath.charCodeAt(index)
    if (code !== SLASH && code !== BACKSLASH) continue
    if (index - start > MAX_NAME_BYTES / MAX_UTF8_PER_UNIT) {
      if (Buffer.byteLength(filePath.slice(start, index)) > MAX_NAME_BYTES) return true
    }
    start = index + 1
  }
  return false
}

/**
 * The real path and the real working directories it was checked against. A working directory
 * that left the tenant's workspace refuses the call (docs/adr/0090-working-directories-checked-per-call.md).
 */
async function confine(
  filePath: string,
  context: WorkingDirectoryContext,
  access: PathAccess,
  name = false,
): Promise<ConfinedResolution> {
  if (filePath.trim() === '') throw new PathConfinementError('The path is empty: give an absolute path.')
  if (filePath.includes('\u0000')) throw new PathConfinementError('The path contains a NUL byte.')
  if (filePath.startsWith('~')) {
    throw new PathConfinementError(
      `The path ${filePath} starts with ~, which is not expanded: give an absolute path or one relative to ${context.cwd}.`,
    )
  }
  if (hasLongComponent(filePath)) {
    throw new PathConfinementError(`A component of the path is longer than ${MAX_NAME_BYTES} bytes.`)
  }
  let roots: readonly string[]
  try {
    // The working directories first; the blob directory only for a read they do not hold
    // (docs/adr/0467-the-blob-directory-is-resolved-when-a-path-needs-it.md).
    roots = await realWorkingDirectories(context, 'write')
  } catch (error) {
    if (error instanceof WorkingDirectoryEscapeError) throw new PathConfinementError(error.message)
    throw error
  }
  const absolutePath = path.resolve(context.cwd, filePath)
  // Created one component at a time, a file could nest past what any path can name.
  if (absolutePath.length > MAX_PATH_BYTES / MAX_UTF8_PER_UNIT && Buffer.byteLength(absolutePath) > MAX_PATH_BYTES) {
    throw new PathConfinementError(`The path is longer than ${MAX_PATH_BYTES} bytes.`)
  }
  // Resolved once per turn: the permission rules decide on this very resolution
  // (docs/adr/0466-the-rules-see-the-path-validation-resolved.md). Named by a descriptor when the
  // caller asks and the turn has no resolution yet (docs/adr/0522-a-read-names-its-file-once.md).
  const named = name ? nameInThisTurn(absolutePath) : undefined
  const realPath =
    named?.realPath ??
    existingRealDirectory(absolutePath) ??
    (await realDirectory(absolutePath).catch((error: unknown) => {
      // ELOOP, ENAMETOOLONG and the like: the system's message would name the real path.
      throw new PathConfinementError(
        `The path ${absolutePath} cannot be resolved (${errorCode(error) ?? 'unknown error'}).`,
      )
    }))
  if (isInsideAny(roots, realPath)) return { realPath, roots, named }
  if (access === 'read' && context.environment?.blobDirectory) {
    roots = await realWorkingDirectories(context, 'read')
    if (isInsideAny(roots, realPath)) return { realPath, roots, named }
  }
  const allowed = workingDirectories(context, access)
  // Where a link points is shown only when it stays in the tenant's own tree: errors never
  // reveal host paths outside it (docs/adr/0093-errors-name-only-the-tenant-tree.md).
  const root = await realWorkspaceRoot(context)
  const inTree = (candidate: string) => root === undefined || isInside(root, candidate)
  const shown = !inTree(absolutePath)
    ? filePath
    : realPath === absolutePath || !inTree(realPath)
      ? absolutePath
      : `${absolutePath} (resolves to ${realPath})`
  if (access === 'write' && isInsideAny(await realWorkingDirectories(context, 'read'), realPath)) {
    throw new PathConfinementError(
      `The path ${shown} is in a read-only directory. Files may be written only inside: ${allowed.join(', ')}.`,
    )
  }
  throw new PathConfinementError(`The path ${shown} is outside the allowed working directories: ${allowed.join(', ')}.`)
}

/** The file named by a descriptor and its name remembered for the turn, when no resolution of it was made yet. */
function nameInThisTurn(absolutePath: string): NamedFile | undefined {
  if (knownRealPath(absolutePath) !== undefined) return undefined
  const named = nameExistingFile(absolutePath)
  if (named) rememberRealPath(absolutePath, named.realPath)
  return named
}

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
  return (await confine(filePath, context, access)).realPath
}

/**
 * resolveConfinedPath, then the file opened so that the object read or written is the one
 * checked: a directory swapped for a symlink between the check and the open makes the open
 * fail (docs/adr/0091-open-through-checked-descriptors.md). The caller closes the handle.
 */
export async function openConfinedFile(
  filePath: string,
  context: WorkingDirectoryContext,
  access: PathAccess,
  flags: number,
  options: { createParents: boolean } = { createParents: false },
): Promise<{ realPath: string; handle: FileHandle }> {
  const { realPath, roots } = await confine(filePath, context, access)
  try {
    return { realPath, handle: await openFileInside(roots, realPath, flags, options) }
  } catch (error) {
    if (error instanceof PathChangedError) throw new PathConfinementError(`${filePath}: ${error.message}`)
    throw error
  }
}

/**
 * A checked descriptor: `close` closes it the way it was opened. `stats`: the object's, when it
 * was named in this turn (docs/adr/0522); the caller fstats the descriptor otherwise.
 */
export type ConfinedDescriptor = { realPath: string; fd: number; close: () => Promise<void>; stats?: Stats }

/**
 * openConfinedFile as a descriptor opened synchronously where /proc/self/fd allows, no
 * threadpool round trip (docs/adr/0480-small-files-are-read-synchronously.md), and
 * through openFileInside where it does not. `resolved`: the resolution this call's validation
 * made, opened as it is; the open still verifies the object against it
 * (docs/adr/0462-a-call-opens-the-path-its-validation-resolved.md), or, when validation named
 * the file in this turn, reopens that very object (docs/adr/0522). The caller calls `close`.
 */
export async function openConfinedDescriptor(
  filePath: string,
  context: WorkingDirectoryContext,
  access: PathAccess,
  flags: number,
  options: { createParents: boolean } = { createParents: false },
  resolved?: ConfinedResolution,
): Promise<ConfinedDescriptor> {
  const { realPath, roots, named } = resolved ?? (await confine(filePath, context, access))
  try {
    // The object validation named, when it was named in this turn (docs/adr/0522).
    const reopened = named && openNamedFile(named, flags)
    if (named && reopened !== undefined) {
      return { realPath, fd: reopened, close: async () => closeSync(reopened), stats: named.stats }
    }
    const fd = openFileInsideSync(roots, realPath, flags, options)
    if (fd !== undefined) return { realPath, fd, close: async () => closeSync(fd) }
    const handle = await openFileInside(roots, realPath, flags, options)
    return { realPath, fd: handle.fd, close: () => handle.close() }
  } catch (error) {
    if (error instanceof PathChangedError) throw new PathConfinementError(`${filePath}: ${error.message}`)
    throw error
  }
}

/**
 * resolveConfinedPath with the refusal as a value, for validation: a path outside the working
 * directories is the model's to fix, not a fault. Any other error still throws. `name`: an
 * existing path is named by a descriptor the call can reopen in this turn (docs/adr/0522).
 */
export async function tryResolveConfinedPath(
  filePath: string,
  context: WorkingDirectoryContext,
  access: PathAccess,
  name = false,
): Promise<ConfinedPath> {
  try {
    return { ok: true, ...(await confine(filePath, context, access, name)) }
  } catch (error) {
    if (error instanceof PathConfinementError) return { ok: false, message: error.message }
    throw error
  }
}
