import { constants, fstatSync } from 'node:fs'
import type { FileHandle } from 'node:fs/promises'
import type { WorkingDirectoryContext } from '../../paths/working-directories.js'
import { openConfinedFile } from './resolve-confined-path.js'

/**
 * Replaces the whole content of `filePath` (creating it and its parents if missing) through a
 * descriptor opened inside the working directories (docs/adr/0091-open-through-checked-descriptors.md).
 * The file is opened without O_TRUNC and truncated only once the open was verified, so a path
 * that turned out to lead elsewhere is never truncated. Returns its real path.
 */
export async function writeConfinedFile(
  filePath: string,
  context: WorkingDirectoryContext,
  content: string | ((current: FileHandle) => Promise<string>),
): Promise<string> {
  const { realPath, handle } = await openConfinedFile(
    filePath,
    context,
    'write',
    constants.O_RDWR | constants.O_CREAT,
    { createParents: true },
  )
  try {
    // The kernel answers fstat from the open descriptor: no threadpool round trip (docs/adr/0386).
    if (!fstatSync(handle.fd).isFile()) throw new Error(`${filePath} is not a regular file.`)
    const text = typeof content === 'string' ? content : await content(handle)
    const bytes = Buffer.from(text)
    await handle.truncate(0)
    let written = 0
    while (written < bytes.length) {
      written += (await handle.write(bytes, written, bytes.length - written, written)).bytesWritten
    }
    return realPath
  } finally {
    await handle.close()
  }
}
