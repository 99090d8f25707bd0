import {
  closeSync,
  constants,
  fstatSync,
  ftruncate,
  ftruncateSync,
  openSync,
  read,
  readSync,
  write,
  writeSync,
} from 'node:fs'
import { promisify } from 'node:util'

/**
 * Files up to this size are read and written with synchronous calls on their checked
 * descriptor: a page-cache copy of 64 KiB (the chunk Read's stream used to take in one
 * threadpool round trip) costs less than the hop to the threadpool and back. Larger files keep
 * the threadpool so the event loop is never held long
 * (docs/adr/0480-small-files-are-read-and-written-synchronously.md).
 */
export const SYNC_IO_LIMIT = 64 * 1024

const readAt = promisify(read)
const writeAt = promisify(write)
const truncateAsync = promisify(ftruncate)

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
 * Replaces the content of the file open on `fd` (`previousSize` bytes long) with `bytes`:
 * synchronously when both are small (truncating a large file frees its pages, which can take a
 * while), through the threadpool otherwise.
 */
export async function replaceWhole(fd: number, previousSize: number, bytes: Buffer): Promise<void> {
  if (previousSize <= SYNC_IO_LIMIT && bytes.length <= SYNC_IO_LIMIT) {
    ftruncateSync(fd, 0)
    let written = 0
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written, written)
    return
  }
  await truncateAsync(fd, 0)
  let written = 0
  while (written < bytes.length) {
    written += (await writeAt(fd, bytes, written, bytes.length - written, written)).bytesWritten
  }
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
