import { randomUUID } from 'node:crypto'
import { mkdir, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { errorCode } from './error-code.js'

export type WritableProbe = { writable: boolean; error?: string }

/**
 * Creates the directory if needed and writes and removes a small file in it: whether the service
 * can write there now. The error is a code (EACCES, ENOSPC, EROFS, …), never the host path: the
 * answer is public (/readyz).
 */
export async function probeWritable(directory: string): Promise<WritableProbe> {
  const file = path.join(directory, `.probe-${randomUUID()}`)
  try {
    await mkdir(directory, { recursive: true })
    await writeFile(file, 'probe', { flag: 'wx' })
    await unlink(file)
    return { writable: true }
  } catch (error) {
    await unlink(file).catch(() => undefined)
    return { writable: false, error: errorCode(error) ?? 'unknown error' }
  }
}
