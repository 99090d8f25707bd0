import { constants, fstatSync } from 'node:fs'
import type { WorkingDirectoryContext } from '../../paths/working-directories.js'
import { readWhole, replaceWhole } from './descriptor-io.js'
import { openConfinedDescriptor } from './resolve-confined-path.js'
import type { ConfinedResolution } from './validated-paths.js'

/** The file being replaced, as the content callback of writeConfinedFile reads it. */
export type CurrentFile = { readFile(encoding: 'utf8'): Promise<string> }

/**
 * Replaces the whole content of `filePath` (creating it and its parents if missing) through a
 * descriptor opened inside the working directories (docs/adr/0091-open-through-checked-descriptors.md).
 * The file is opened without O_TRUNC and truncated only once the open was verified, so a path
 * that turned out to lead elsewhere is never truncated, and then only past the new content's
 * end (docs/adr/0481-rewrites-never-truncate-to-zero.md); a small file is read synchronously
 * (docs/adr/0480-small-files-are-read-synchronously.md). `resolved`: the resolution the call's
 * validation made (docs/adr/0462-a-call-opens-the-path-its-validation-resolved.md). Returns its real path.
 */
export async function writeConfinedFile(
  filePath: string,
  context: WorkingDirectoryContext,
  content: string | ((current: CurrentFile) => Promise<string>),
  resolved?: ConfinedResolution,
): Promise<string> {
  const { realPath, fd, close } = await openConfinedDescriptor(
    filePath,
    context,
    'write',
    constants.O_RDWR | constants.O_CREAT,
    { createParents: true },
    resolved,
  )
  try {
    // The kernel answers fstat from the open descriptor: no threadpool round trip (docs/adr/0386).
    const stats = fstatSync(fd)
    if (!stats.isFile()) throw new Error(`${filePath} is not a regular file.`)
    const current: CurrentFile = { readFile: async () => (await readWhole(fd, stats.size)).toString('utf8') }
    const text = typeof content === 'string' ? content : await content(current)
    await replaceWhole(fd, Buffer.from(text), stats)
    return realPath
  } finally {
    await close()
  }
}
