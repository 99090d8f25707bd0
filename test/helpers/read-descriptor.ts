import { closeSync, readSync } from 'node:fs'

/** The first 256 bytes of the file open on `fd`, as UTF-8, read from offset 0; closes `fd`. */
export function readDescriptorAndClose(fd: number): string {
  const buffer = Buffer.alloc(256)
  try {
    return buffer.subarray(0, readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8')
  } finally {
    closeSync(fd)
  }
}
