import { closeSync, open, read } from 'node:fs'

/** Descriptors kept at most: the host's counts, its settings and a few cgroup files. */
const MAX_KEPT = 16
/** The first read's room; /proc/vmstat is about 4 KiB. A file that fills it is read again with twice the room. */
const FIRST_BYTES = 16 * 1024
const MAX_BYTES = 1024 * 1024

type Kept = { fd: number; uses: number }

/**
 * A reader of small kernel files read again and again (the dirty counts, every 10 ms while files
 * are written): each kept open and read with one `pread` from offset 0 on the threadpool, which
 * procfs, sysfs and cgroupfs answer with the file generated afresh. One round trip per read
 * instead of `readFile`'s open, fstat, reads and close, each its own trip and its own wake-up of
 * the event loop (docs/adr/0565-kernel-counts-are-read-from-kept-descriptors.md). A read that
 * fails closes its descriptor, so the next one opens the file again; past MAX_KEPT paths every
 * descriptor is closed and the set starts over.
 */
export function keptFileReader(): (file: string) => Promise<string> {
  const kept = new Map<string, Kept>()
  const forget = (file: string, entry: Kept) => {
    if (kept.get(file) !== entry) return
    kept.delete(file)
    release(entry)
  }
  const opened = (file: string) =>
    new Promise<Kept>((resolve, reject) => {
      const known = kept.get(file)
      if (known) return resolve(known)
      open(file, 'r', (error, fd) => {
        if (error) return reject(error)
        // Two first reads of one file raced: the later descriptor goes.
        const raced = kept.get(file)
        if (raced) {
          closeSync(fd)
          return resolve(raced)
        }
        if (kept.size >= MAX_KEPT) {
          for (const entry of kept.values()) release(entry)
          kept.clear()
        }
        const entry = { fd, uses: 0 }
        kept.set(file, entry)
        resolve(entry)
      })
    })
  return async (file) => {
    const entry = await opened(file)
    entry.uses++
    try {
      for (let room = FIRST_BYTES; room <= MAX_BYTES; room *= 2) {
        const text = await readFrom(entry.fd, room)
        if (text !== undefined) return text
      }
      throw new Error(`${file} is larger than ${MAX_BYTES} bytes`)
    } catch (error) {
      forget(file, entry)
      throw error
    } finally {
      entry.uses--
      if (entry.uses === 0 && kept.get(file) !== entry) release(entry)
    }
  }
}

/** Closes a descriptor no read is using any more; one still in use is closed by its last read. */
function release(entry: Kept): void {
  if (entry.uses > 0 || entry.fd < 0) return
  const { fd } = entry
  entry.fd = -1
  // Synchronous: rare (a failed read, a full set), and no descriptor outlives its release.
  closeSync(fd)
}

/** The file's whole text when it fits in `room` bytes (read from offset 0), else undefined. */
function readFrom(fd: number, room: number): Promise<string | undefined> {
  const buffer = Buffer.allocUnsafe(room)
  return new Promise((resolve, reject) => {
    read(fd, buffer, 0, room, 0, (error, bytesRead) => {
      if (error) return reject(error)
      resolve(bytesRead < room ? buffer.toString('latin1', 0, bytesRead) : undefined)
    })
  })
}
