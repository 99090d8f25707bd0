import { randomUUID } from 'node:crypto'
import { mkdir, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { errorCode } from '../paths/error-code.js'
import type { BlobStore } from './blob-store.js'

export type BlobHealth = {
  /** Blob writes that failed since start (not counting an id that already existed). */
  readonly failures: number
  /** The last failure's code or message, until a write succeeds again. */
  readonly lastError: string | undefined
  /** Writes and removes a small file in the blob root: whether the directory takes writes now. */
  probe(): Promise<{ writable: boolean; error?: string }>
}

const describe = (error: unknown) =>
  errorCode(error) ?? (error instanceof Error ? error.message : String(error)).slice(0, 200)

/**
 * The blob store with its write failures counted, for `/readyz` and the metrics: a full or
 * read-only blob directory is reported, not only felt by each oversized call
 * (docs/adr/0122-unstorable-output-fails-the-call.md).
 */
export function watchBlobHealth<Store extends BlobStore>(store: Store, root: string): Store & { health: BlobHealth } {
  let failures = 0
  let lastError: string | undefined
  // Only the file system's refusals (ENOSPC, EROFS, EACCES, …): a stream a cancelled call
  // dropped half-way is not a storage fault.
  const failed = (error: unknown) => {
    if (errorCode(error) === undefined) return
    failures++
    lastError = describe(error)
  }
  const succeeded = () => {
    lastError = undefined
  }
  const watch = <T>(promise: Promise<T>): Promise<T> => {
    promise.then(succeeded, failed)
    return promise
  }
  const health: BlobHealth = {
    get failures() {
      return failures
    },
    get lastError() {
      return lastError
    },
    async probe() {
      const file = path.join(root, `.probe-${randomUUID()}`)
      try {
        await mkdir(root, { recursive: true })
        await writeFile(file, 'probe')
        await unlink(file)
        return { writable: true }
      } catch (error) {
        await unlink(file).catch(() => undefined)
        return { writable: false, error: describe(error) }
      }
    },
  }
  return {
    ...store,
    write: (tenant: string, blobId: string, content: string) => watch(store.write(tenant, blobId, content)),
    openWriteStream: async (tenant: string, blobId: string) => {
      const opened = await watch(store.openWriteStream(tenant, blobId))
      opened.finished.then(succeeded, failed)
      return opened
    },
    health,
  }
}
