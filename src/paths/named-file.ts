import { closeSync, constants, existsSync, fstatSync, openSync, readlinkSync, type Stats } from 'node:fs'

/**
 * Linux's O_PATH (the same value on x86-64 and arm64): a descriptor naming a file without
 * opening it, so no device, FIFO or lock sees an open. Node does not export it.
 */
const O_PATH = process.platform === 'linux' && existsSync('/proc/self/fd') ? 0o10000000 : undefined

/** An existing file named by a descriptor: its real path as the kernel names it, and its stats. */
export type NamedFile = { readonly realPath: string; readonly stats: Stats; readonly fd: number }

/** Descriptors named in the current turn of the event loop and not yet taken: closed at its end. */
let untaken: Set<NamedFile> | undefined

/** Kept by identity, not by number: a number closed at a turn's end may name another file later. */
function keepForThisTurn(named: NamedFile): void {
  if (!untaken) {
    const turn = new Set<NamedFile>()
    untaken = turn
    setImmediate(() => {
      if (untaken === turn) untaken = undefined
      for (const left of turn) closeSync(left.fd)
    })
  }
  untaken.add(named)
}

/**
 * `absolutePath` named with O_PATH, links followed, which opens nothing: the kernel's name of
 * what it reached is its real path (the name the checked open of 0468 already requires), and the
 * stats are that object's. One lookup of the path instead of realpath(3)'s one per component and
 * a stat's (docs/adr/0522-a-read-names-its-file-once.md). Undefined when it cannot be named so
 * (missing, a loop, no /proc): the caller resolves as before. The descriptor lives until the end
 * of this turn unless the call takes it (openNamedFile).
 */
export function nameExistingFile(absolutePath: string): NamedFile | undefined {
  if (O_PATH === undefined) return undefined
  let fd: number
  try {
    fd = openSync(absolutePath, O_PATH)
  } catch {
    return undefined
  }
  try {
    const realPath = readlinkSync(`/proc/self/fd/${fd}`)
    // Unlinked since the open, or not reachable from this process's root: not a name to check.
    if (!realPath.startsWith('/') || realPath.endsWith(' (deleted)')) throw new Error('unnamed')
    const named = { realPath, stats: fstatSync(fd), fd }
    keepForThisTurn(named)
    return named
  } catch {
    closeSync(fd)
    return undefined
  }
}

/**
 * The regular file `named` opened through its descriptor, when it was named in this turn and not
 * taken yet: the object validation named and checked, whatever its path has become since, never a
 * device or FIFO (its stats said regular). For reading (Read, docs/adr/0522) or for writing (Edit,
 * docs/adr/0525-an-edit-names-its-file-once.md: the object written is the one whose name was
 * confined, as 0468's checked open guarantees by its own lookup). Undefined otherwise: the caller
 * opens by path through checked descriptors (docs/adr/0468). The caller closes the returned descriptor.
 */
export function openNamedFile(named: NamedFile, flags: number): number | undefined {
  if (!untaken?.delete(named)) return undefined
  try {
    return reopen(named, flags)
  } finally {
    closeSync(named.fd)
  }
}

/**
 * The regular file `named` opened for reading and left named for the call of this turn: an
 * Edit's validation reads the text it checks old_string against from the object it named
 * (docs/adr/0525). Undefined when it is no longer named in this turn or not a regular file.
 */
export function readNamedFileAgain(named: NamedFile): number | undefined {
  if (!untaken?.has(named)) return undefined
  return reopen(named, constants.O_RDONLY)
}

function reopen(named: NamedFile, flags: number): number | undefined {
  if (!named.stats.isFile()) return undefined
  // As 0468's reopen: the file exists, and O_NONBLOCK as every checked open.
  return openSync(
    `/proc/self/fd/${named.fd}`,
    (flags & ~(constants.O_CREAT | constants.O_TRUNC)) | constants.O_NONBLOCK,
  )
}
