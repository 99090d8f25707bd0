import { lstat } from 'node:fs/promises'
import path from 'node:path'
import { errorCode } from '../../paths/error-code.js'
import { memoryMessages as messages } from './memory-messages.js'

export const MEMORY_PREFIX = '/memories'

/** A memory path the model gave that leads outside /memories. */
class MemoryPathError extends Error {
  override name = 'MemoryPathError'
}

/**
 * `/memories/a/b.md` → `<root>/a/b.md`. Only `/memories` and paths under it; no `.`, `..`, empty
 * or NUL-bearing component; and no component on the way that is a symbolic link (the store is
 * the service's own, but a link in it must never lead elsewhere). docs/adr/0143-memory-store.md.
 */
export async function resolveMemoryPath(memoryPath: string, root: string): Promise<string> {
  if (memoryPath !== MEMORY_PREFIX && !memoryPath.startsWith(`${MEMORY_PREFIX}/`)) {
    throw new MemoryPathError(messages.outside(memoryPath))
  }
  const names = memoryPath
    .slice(MEMORY_PREFIX.length)
    .split('/')
    .filter((name) => name !== '')
  if (names.some((name) => name === '.' || name === '..' || name.includes('\u0000') || name.includes('\\'))) {
    throw new MemoryPathError(messages.escapes(memoryPath))
  }
  let current = root
  for (const name of names) {
    current = path.join(current, name)
    try {
      if ((await lstat(current)).isSymbolicLink()) throw new MemoryPathError(messages.symlink)
    } catch (error) {
      if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') break
      throw error
    }
  }
  return path.join(root, ...names)
}

/** The path as shown back to the model: `/memories/a/`, `/memories//a` → `/memories/a`. */
export function normaliseMemoryPath(memoryPath: string): string {
  const names = memoryPath
    .slice(MEMORY_PREFIX.length)
    .split('/')
    .filter((name) => name !== '')
  return [MEMORY_PREFIX, ...names].join('/')
}
