import { closeSync, constants, existsSync, fstatSync, openSync, readlinkSync, type Stats } from 'node:fs'

/**
 * Linux's O_PATH (the same value on x86-64 and arm64): a descriptor naming a file without
 * opening it, so no device, FIFO or lock sees an open. Node does not export it.
 */
const O_PATH = process.platform === 'linux' && existsSync('/proc/self/fd') ? 0o10000000 : undefined

/** An existing file named by a descriptor: its real path as the kernel names it, and its stats. */
export type NamedFile = { readonly realPath: string; readonly stats: Stats; readonly fd: number }

/**
 * What an Edit's validation kept for its call: the read-write descriptor it read the file through
 * (docs/adr/0606-an-edit-writes-through-the-descriptor-its-validation-read.md) and the bytes it
 * read, which the call compares with its own read instead of taking the file's stats again
 * (docs/adr/0608-an-edit-compares-the-bytes-its-validation-read.md).
 */
export type KeptRead = { readonly fd: number; readonly content: Buffer }

/**
 * Descriptors named in the current turn of the event loop and not yet taken, each with what an
 * Edit's validation kept for its call, if anything: all closed at the turn's end.
 */
let untaken: Map<NamedFile, KeptRead | undefined> | undefined

/** Kept by identity, not by number: a number closed at a turn's end may name another file later. */
function keepForThisTurn(named: NamedFile): void {
  if (!untaken) {
    const turn = new Map<NamedFile, KeptRead | undefined>()
    untaken = turn
    setImmediate(() => {
      if (untaken === turn) untaken = undefined
      for (const [left, kept] of turn) {
        closeSync(left.fd)
        if (kept !== undefined) closeSync(kept.fd)
      }
    })
  }
  untaken.set(named, undefined)
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
 * confined, as 0468's checked open guarantees by its own lookup); a descriptor its validation kept
 * is closed here, since only takeKeptRead hands it on (docs/adr/0606). Undefined otherwise: the caller
 * opens by path through checked descriptors (docs/adr/0468). The caller closes the returned descriptor.
 */
export function openNamedFile(named: NamedFile, flags: number): number | undefined {
  if (!untaken?.has(named)) return undefined
  const kept = untaken.get(named)
  untaken.delete(named)
  try {
    // What validation kept is taken by takeKeptRead (0606, 0608); any other taker opens its own.
    if (kept !== undefined) closeSync(kept.fd)
    return reopen(named, flags)
  } finally {
    closeSync(named.fd)
  }
}

/** A descriptor of the file named, and whether it is open for writing as well as reading. */
export type ReopenedFile = { fd: number; writable: boolean }

/**
 * The regular file `named` opened for reading and left named for the call of this turn: an
 * Edit's validation reads the text it checks old_string against from the object it named
 * (docs/adr/0525). Opened read-write where the file allows it, so that the call can write
 * through the same descriptor (keepForTheCall, docs/adr/0606), else read-only. Undefined when it
 * is no longer named in this turn or not a regular file. The caller closes it unless kept.
 */
export function readNamedFileAgain(named: NamedFile): ReopenedFile | undefined {
  if (!untaken?.has(named)) return undefined
  try {
    const fd = reopen(named, constants.O_RDWR)
    return fd === undefined ? undefined : { fd, writable: true }
  } catch {
    // Not writable (its mode, a read-only mount, a running program): read it all the same; the
    // call's own reopen for writing gives the path's answer.
    const fd = reopen(named, constants.O_RDONLY)
    return fd === undefined ? undefined : { fd, writable: false }
  }
}

/**
 * Hands `reopened`, read through synchronously in this turn, and `content`, the whole file as read
 * through it, to the call that takes `named` in the same turn (takeKeptRead), instead of the call
 * opening the object a second time (docs/adr/0606, 0608). False when it cannot be kept
 * (read-only, the name taken or of an earlier turn): the caller closes it. Only a descriptor no
 * read is pending on may be kept: the turn's end closes it.
 */
export function keepForTheCall(named: NamedFile, reopened: ReopenedFile, content: Buffer): boolean {
  if (!reopened.writable || !untaken?.has(named) || untaken.get(named) !== undefined) return false
  untaken.set(named, { fd: reopened.fd, content })
  return true
}

/**
 * What validation kept for the call of this turn (keepForTheCall), taken: the name is closed and
 * the caller closes the descriptor. Undefined when nothing was kept: `named` is left as it was,
 * for openNamedFile.
 */
export function takeKeptRead(named: NamedFile): KeptRead | undefined {
  const kept = untaken?.get(named)
  if (kept === undefined) return undefined
  untaken?.delete(named)
  closeSync(named.fd)
  return kept
}

function reopen(named: NamedFile, flags: number): number | undefined {
  if (!named.stats.isFile()) return undefined
  // As 0468's reopen: the file exists, and O_NONBLOCK as every checked open.
  return openSync(
    `/proc/self/fd/${named.fd}`,
    (flags & ~(constants.O_CREAT | constants.O_TRUNC)) | constants.O_NONBLOCK,
  )
}
