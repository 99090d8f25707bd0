import {
  closeSync,
  constants,
  fstatSync,
  ftruncate,
  openSync,
  read,
  readSync,
  type Stats,
  write,
  writeSync,
} from 'node:fs'
import { promisify } from 'node:util'
import { createInlineWritePolicy } from './write-pressure.js'

/**
 * Files up to this size are read with synchronous calls on their checked descriptor: a page-cache copy of 64 KiB (the chunk Read's stream used to take in one
 * threadpool round trip) costs less than the hop to the threadpool and back. Larger files keep
 * the threadpool so the event loop is never held long
 * (docs/adr/0480-small-files-are-read-synchronously.md).
 */
export const SYNC_IO_LIMIT = 64 * 1024

const readAt = promisify(read)
const writeAt = promisify(write)
const truncateAsync = promisify(ftruncate)
/** The one policy of the process: its samples and its back-off are the host's, shared by every write. */
const inlineWrites = createInlineWritePolicy(SYNC_IO_LIMIT)

/**
 * The content of the file open on `fd` from its start, synchronously, when `size` (its fstat
 * size) is at most SYNC_IO_LIMIT; undefined when it is larger or grew past `size` since.
 */
export function readSmallSync(fd: number, size: number): Buffer | undefined {
  if (size > SYNC_IO_LIMIT) return undefined
  // One byte more than expected tells a file that grew since its fstat.
  const buffer = Buffer.allocUnsafe(size + 1)
  let length = 0
  for (;;) {
    const wanted = buffer.length - length
    const count = readSync(fd, buffer, length, wanted, length)
    length += count
    if (length > size) return undefined
    // A regular file reads short only at its end: no second call to see the end.
    if (count < wanted) return buffer.subarray(0, length)
  }
}

/** The whole content of the file open on `fd`, from its start: synchronously when small. */
export async function readWhole(fd: number, size: number): Promise<Buffer> {
  const small = readSmallSync(fd, size)
  if (small) return small
  const chunks: Buffer[] = []
  let position = 0
  for (;;) {
    const buffer = Buffer.allocUnsafe(Math.max(SYNC_IO_LIMIT, size - position + 1))
    const { bytesRead } = await readAt(fd, buffer, 0, buffer.length, position)
    if (bytesRead === 0) return Buffer.concat(chunks)
    chunks.push(buffer.subarray(0, bytesRead))
    position += bytesRead
  }
}

/**
 * The content of the file open on `fd` from its start, one threadpool read of SYNC_IO_LIMIT
 * bytes at a time. Leaving the loop early leaves no read pending, and the descriptor open: the
 * caller owns it (a read stream's destroy would close it).
 */
export async function* readChunks(fd: number): AsyncGenerator<Buffer> {
  let position = 0
  for (;;) {
    const buffer = Buffer.allocUnsafe(SYNC_IO_LIMIT)
    const { bytesRead } = await readAt(fd, buffer, 0, buffer.length, position)
    if (bytesRead === 0) return
    position += bytesRead
    yield buffer.subarray(0, bytesRead)
  }
}

/**
 * Replaces the content of the file open on `fd` with `bytes`: the new bytes written from the
 * start, then the file cut to their length if it is longer (fstat, answered from the
 * descriptor, says whether). Never truncated to zero first: on ext4 a file truncated to zero
 * and rewritten is flushed to disk at its close, and its next truncation waits for that write,
 * 5 ms measured. The writes stay on the threadpool, where the kernel's throttling of a busy
 * disk cannot hold the event loop (docs/adr/0481-rewrites-never-truncate-to-zero.md), unless
 * they are small and the kernel has no dirty pressure that could throttle them: then inline,
 * without the threadpool's round trip (docs/adr/0545-small-rewrites-are-written-inline-while-the-kernel-has-no-dirty-pressure.md).
 * `before`: the descriptor's stats before the write. Gives the file's stats once written, from
 * the descriptor: the read-before-write record needs no stat by path after the close
 * (docs/adr/0526-a-write-is-recorded-from-its-descriptor.md); without a promise when nothing went
 * to the threadpool, so an inline rewrite adds no turn of the microtask queue to the call
 * (docs/adr/0589-an-inline-edit-awaits-nothing.md).
 */
export function replaceWhole(fd: number, bytes: Buffer, before: Stats): Stats | Promise<Stats> {
  if (!inlineWrites.mayWriteInline(fd, before, bytes.length)) return writeOnThreadpool(fd, bytes)
  const started = performance.now()
  let written = 0
  while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, written)
  inlineWrites.noteInlineWrite(performance.now() - started)
  const stats = fstatSync(fd)
  return stats.size <= bytes.length ? stats : truncateTo(fd, bytes.length)
}

/** The bytes written through the threadpool, then the file cut to their length. */
async function writeOnThreadpool(fd: number, bytes: Buffer): Promise<Stats> {
  let written = 0
  while (written < bytes.length) {
    written += (await writeAt(fd, bytes, written, bytes.length - written, written)).bytesWritten
  }
  const stats = fstatSync(fd)
  return stats.size <= bytes.length ? stats : truncateTo(fd, bytes.length)
}

async function truncateTo(fd: number, length: number): Promise<Stats> {
  await truncateAsync(fd, length)
  return fstatSync(fd)
}

/**
 * The text of the regular file at `realPath` (validation's read, by path): opened with
 * O_NONBLOCK and tested with fstat first, so a FIFO swapped in after the caller's stat can hold
 * neither the event loop nor a threadpool thread; read synchronously when small.
 */
export async function readTextFile(realPath: string): Promise<string> {
  const fd = openSync(realPath, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) throw new Error(`${realPath} is not a regular file.`)
    return (await readWhole(fd, stats.size)).toString('utf8')
  } finally {
    closeSync(fd)
  }
}
