import { closeSync, constants, existsSync, mkdirSync, openSync, readlinkSync } from 'node:fs'
import { type FileHandle, mkdir, open } from 'node:fs/promises'
import path from 'node:path'
import { errorCode } from './error-code.js'
import { isInside, isInsideAny } from './is-inside.js'

/**
 * The directory of a process's open descriptors. Opening `<it>/N/name` opens `name` inside the
 * directory descriptor N refers to, whatever its path has become since: Node's stand-in for
 * openat(2) (docs/adr/0091-open-through-checked-descriptors.md).
 */
const DESCRIPTORS = '/proc/self/fd'
const HAS_DESCRIPTORS = existsSync(DESCRIPTORS)

/** A file or directory that moved out of the working directories between the check and the open. */
export class PathChangedError extends Error {
  override name = 'PathChangedError'
}

const changed = () =>
  new PathChangedError('The path changed while it was being opened (a directory was replaced by a link): refused.')

function descriptorPath(handle: FileHandle | number, name?: string): string {
  const fd = typeof handle === 'number' ? handle : handle.fd
  return name === undefined ? `${DESCRIPTORS}/${fd}` : `${DESCRIPTORS}/${fd}/${name}`
}

/**
 * Refuses a descriptor whose real path (as the kernel reports it) is outside every root. The
 * link under /proc is answered by the kernel from the open descriptor, with no disk to wait
 * for: read synchronously, no threadpool round trip (docs/adr/0312).
 */
function verify(handle: FileHandle | number, roots: readonly string[]): void {
  if (!HAS_DESCRIPTORS) return
  const real = readlinkSync(descriptorPath(handle)).replace(/ \(deleted\)$/, '')
  if (!isInsideAny(roots, real)) throw changed()
}

async function openChecked(target: string, flags: number, mode?: number): Promise<FileHandle> {
  try {
    return await open(target, flags | constants.O_NOFOLLOW, mode)
  } catch (error) {
    // O_NOFOLLOW met a symlink where the checked path had a real file or directory.
    if (errorCode(error) === 'ELOOP') throw changed()
    throw error
  }
}

/**
 * Opens the real directory `realDirectory` (already checked to be inside one of `roots`, which
 * are real paths) one component at a time from the root holding it, each component opened with
 * O_NOFOLLOW relative to the descriptor of its parent: a directory swapped for a symlink after
 * the check makes the open fail instead of leading outside. `create` makes missing components.
 */
export async function openDirectoryInside(
  roots: readonly string[],
  realDirectory: string,
  options: { create: boolean },
): Promise<FileHandle> {
  const root = roots.filter((candidate) => isInside(candidate, realDirectory)).sort((a, b) => b.length - a.length)[0]
  if (root === undefined) throw changed()
  const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY
  if (!HAS_DESCRIPTORS) {
    if (options.create) await mkdir(realDirectory, { recursive: true })
    return openChecked(realDirectory, directoryFlags)
  }
  let handle = await openChecked(root, directoryFlags)
  try {
    verify(handle, roots)
    for (const name of path.relative(root, realDirectory).split(path.sep).filter(Boolean)) {
      if (options.create) {
        await mkdir(descriptorPath(handle, name)).catch((error: unknown) => {
          if (errorCode(error) !== 'EEXIST') throw error
        })
      }
      const next = await openChecked(descriptorPath(handle, name), directoryFlags)
      await handle.close()
      handle = next
    }
    verify(handle, roots)
    return handle
  } catch (error) {
    await handle.close().catch(() => undefined)
    if (errorCode(error) === 'ENOTDIR') throw changed()
    throw error
  }
}

function openCheckedSync(target: string, flags: number, mode?: number): number {
  try {
    return openSync(target, flags | constants.O_NOFOLLOW, mode)
  } catch (error) {
    // ELOOP: a link where the checked path had a file. ENOTDIR on a directory open: a link or a
    // file where the checked path had a directory.
    const code = errorCode(error)
    if (code === 'ELOOP' || (code === 'ENOTDIR' && (flags & constants.O_DIRECTORY) !== 0)) throw changed()
    throw error
  }
}

/**
 * The directory opened by its real path in one open, when it exists: accepted only if the
 * kernel names the opened directory exactly `realDirectory`, so a component swapped for a link
 * since the check is refused as the walk below would refuse it, after opening at most a
 * directory (which reads nothing) elsewhere (docs/adr/0463-a-checked-directory-opens-in-one-step.md).
 * Undefined when it does not exist yet: the caller walks and makes it.
 */
function openExistingDirectorySync(roots: readonly string[], realDirectory: string): number | undefined {
  let fd: number
  try {
    fd = openCheckedSync(realDirectory, constants.O_RDONLY | constants.O_DIRECTORY)
  } catch (error) {
    if (errorCode(error) === 'ENOENT') return undefined
    throw error
  }
  const real = readlinkSync(descriptorPath(fd))
  if (real === realDirectory && isInsideAny(roots, real)) return fd
  closeSync(fd)
  throw changed()
}

/**
 * openDirectoryInside as a descriptor, each component opened (and made) synchronously: a
 * directory open reads no file data, the kernel answers it from the same lookups the
 * synchronous realpath before it just made (docs/adr/0385-checked-directory-opens-are-synchronous.md).
 * Only where /proc/self/fd exists; the caller closes the descriptor.
 */
function openDirectoryInsideSync(roots: readonly string[], realDirectory: string, create: boolean): number {
  const root = roots.filter((candidate) => isInside(candidate, realDirectory)).sort((a, b) => b.length - a.length)[0]
  if (root === undefined) throw changed()
  const existing = openExistingDirectorySync(roots, realDirectory)
  if (existing !== undefined) return existing
  const directoryFlags = constants.O_RDONLY | constants.O_DIRECTORY
  let fd = openCheckedSync(root, directoryFlags)
  try {
    verify(fd, roots)
    for (const name of path.relative(root, realDirectory).split(path.sep).filter(Boolean)) {
      if (create) {
        try {
          mkdirSync(descriptorPath(fd, name))
        } catch (error) {
          if (errorCode(error) !== 'EEXIST') throw error
        }
      }
      const next = openCheckedSync(descriptorPath(fd, name), directoryFlags)
      closeSync(fd)
      fd = next
    }
    verify(fd, roots)
    return fd
  } catch (error) {
    closeSync(fd)
    if (errorCode(error) === 'ENOTDIR') throw changed()
    throw error
  }
}

/**
 * Linux's O_PATH (the same value on x86-64 and arm64): a descriptor naming a file without
 * opening it, so no device or FIFO sees an open. Node does not export it.
 */
const O_PATH = process.platform === 'linux' ? 0o10000000 : undefined

/**
 * An existing file opened in one step (docs/adr/0468-a-checked-file-opens-in-one-step.md):
 * `realPath` named with O_PATH and O_NOFOLLOW, which opens nothing, accepted only if the kernel
 * names that descriptor exactly `realPath` (a component swapped for a link since the check makes
 * the name differ, as 0463 does for directories), then reopened through /proc/self/fd with the
 * caller's flags, which opens that very object. A link where the file was is refused (the reopen
 * meets it: ELOOP). Undefined when the name cannot be opened so (missing, not a directory on the
 * way, O_EXCL asked): the caller walks, which makes what is missing and words every error.
 */
function openExistingFileSync(roots: readonly string[], realPath: string, flags: number): number | undefined {
  if (O_PATH === undefined || (flags & constants.O_EXCL) !== 0) return undefined
  let named: number
  try {
    named = openSync(realPath, O_PATH | constants.O_NOFOLLOW)
  } catch {
    return undefined
  }
  try {
    const real = readlinkSync(descriptorPath(named))
    if (real !== realPath || !isInsideAny(roots, real)) throw changed()
    // Without O_NOFOLLOW: /proc/self/fd/N is itself a link, the one to the object just named.
    return openSync(descriptorPath(named), (flags & ~constants.O_CREAT) | constants.O_NONBLOCK, 0o666)
  } catch (error) {
    // The reopen of a descriptor naming a link fails with ELOOP: a link where the file was.
    if (errorCode(error) === 'ELOOP') throw changed()
    throw error
  } finally {
    closeSync(named)
  }
}

/**
 * openFileInside as a descriptor, every open synchronous: an existing file in one step
 * (openExistingFileSync), else the directories as
 * openDirectoryInsideSync, then the file relative to its directory's descriptor with O_NOFOLLOW
 * and O_NONBLOCK, and the descriptor verified. Opening a regular file reads no data, the kernel
 * answers it from the lookups just made (docs/adr/0480-small-files-are-read-synchronously.md).
 * Undefined where /proc/self/fd is missing: the caller takes openFileInside. The caller closes it.
 */
export function openFileInsideSync(
  roots: readonly string[],
  realPath: string,
  flags: number,
  options: { createParents: boolean } = { createParents: false },
): number | undefined {
  if (!HAS_DESCRIPTORS) return undefined
  const existing = openExistingFileSync(roots, realPath, flags)
  if (existing !== undefined) return existing
  const directory = openDirectoryInsideSync(roots, path.dirname(realPath), options.createParents)
  let fd: number
  try {
    fd = openCheckedSync(descriptorPath(directory, path.basename(realPath)), flags | constants.O_NONBLOCK, 0o666)
  } finally {
    closeSync(directory)
  }
  try {
    verify(fd, roots)
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

/**
 * Opens the real file `realPath` (checked to be inside one of `roots`) so that what is read or
 * written is the object that was checked: its directory through openDirectoryInside, the file
 * itself with O_NOFOLLOW relative to that directory's descriptor, and the opened descriptor's
 * real path verified once more. O_NONBLOCK keeps a FIFO planted in the workspace from hanging
 * the open; callers refuse anything that is not a regular file.
 */
export async function openFileInside(
  roots: readonly string[],
  realPath: string,
  flags: number,
  options: { createParents: boolean } = { createParents: false },
): Promise<FileHandle> {
  let handle: FileHandle
  if (HAS_DESCRIPTORS) {
    const directory = openDirectoryInsideSync(roots, path.dirname(realPath), options.createParents)
    try {
      handle = await openChecked(
        descriptorPath(directory, path.basename(realPath)),
        flags | constants.O_NONBLOCK,
        0o666,
      )
    } finally {
      closeSync(directory)
    }
  } else {
    const directory = await openDirectoryInside(roots, path.dirname(realPath), { create: options.createParents })
    try {
      handle = await openChecked(realPath, flags | constants.O_NONBLOCK, 0o666)
    } finally {
      await directory.close()
    }
  }
  try {
    verify(handle, roots)
    return handle
  } catch (error) {
    await handle.close()
    throw error
  }
}
