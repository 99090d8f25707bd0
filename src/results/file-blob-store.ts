import { mkdirSync } from 'node:fs'
import { type FileHandle, lstat, mkdir, open, readdir, unlink, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { Writable } from 'node:stream'
import { startSweeper as startIntervalSweeper } from '../async/start-sweeper.js'
import { errorCode } from '../paths/error-code.js'
import { assertValidBlobId, assertValidTenant, isValidBlobId, isValidTenant } from './blob-names.js'
import type { BlobRef, BlobStore, BlobStream } from './blob-store.js'

export type FileBlobStoreOptions = {
  /** Blobs live in `<root>/<tenant>/<blobId>`. */
  root: string
  /** Blobs whose mtime is older than this are removed by `sweep`. */
  ttlMs: number
  now?: () => number
  /** Where failures of the background sweeper go (default: a process warning). */
  onSweepError?: (error: unknown) => void
}

export type FileBlobStore = BlobStore & {
  /** Sweeps every `intervalMs` on an unref'd timer (restarts it when called again). */
  startSweeper(intervalMs: number): void
  /** Stops the sweeper; the store stays usable. */
  close(): void
}

/**
 * Blob store on the local file system, one directory per tenant. Every file is created
 * exclusively (`wx`): an id that already exists is reused as it is, never overwritten.
 */
export function createFileBlobStore(options: FileBlobStoreOptions): FileBlobStore {
  if (typeof options.root !== 'string' || options.root === '') {
    throw new TypeError('Expected `root` to be a non-empty path')
  }
  if (!(options.ttlMs > 0)) throw new TypeError(`Expected \`ttlMs\` to be a positive number, got ${options.ttlMs}`)
  const root = path.resolve(options.root)
  const ttlMs = options.ttlMs
  const now = options.now ?? Date.now
  const onSweepError = options.onSweepError ?? ((error: unknown) => process.emitWarning(`Blob sweep failed: ${error}`))
  const createdDirectories = new Set<string>()
  // Writes in flight, by path: a second writer of the same id waits for the first one to settle
  // rather than reporting a half-written file, and the sweeper leaves the file alone.
  const pending = new Map<string, Promise<unknown>>()
  let stopSweeper: (() => void) | undefined

  function directory(tenant: string): string {
    assertValidTenant(tenant)
    const tenantDirectory = path.join(root, tenant)
    if (!createdDirectories.has(tenantDirectory)) {
      mkdirSync(tenantDirectory, { recursive: true })
      createdDirectories.add(tenantDirectory)
    }
    return tenantDirectory
  }

  /** Synchronous, so a write claims its id before any await and concurrent writers queue behind it. */
  function blobPath(tenant: string, blobId: string): string {
    assertValidTenant(tenant)
    assertValidBlobId(blobId)
    return path.join(root, tenant, blobId)
  }

  async function ensureDirectoryOf(filePath: string): Promise<void> {
    const tenantDirectory = path.dirname(filePath)
    if (createdDirectories.has(tenantDirectory)) return
    await mkdir(tenantDirectory, { recursive: true })
    createdDirectories.add(tenantDirectory)
  }

  async function statFile(blobId: string, filePath: string): Promise<BlobRef | null> {
    try {
      // lstat: a symlink planted in the directory is not a blob and is never followed.
      const stats = await lstat(filePath)
      return stats.isFile() ? { blobId, path: filePath, size: stats.size } : null
    } catch (error) {
      if (errorCode(error) === 'ENOENT') return null
      throw error
    }
  }

  async function existingBlob(blobId: string, filePath: string): Promise<BlobRef> {
    await pending.get(filePath)?.catch(() => undefined)
    const ref = await statFile(blobId, filePath)
    if (!ref) throw new Error(`Blob ${blobId} already exists but is not a readable file`)
    return ref
  }

  function track(filePath: string, settled: Promise<unknown>): void {
    pending.set(filePath, settled)
    const release = () => {
      if (pending.get(filePath) === settled) pending.delete(filePath)
    }
    settled.then(release, release)
  }

  async function write(tenant: string, blobId: string, content: string): Promise<BlobRef> {
    const filePath = blobPath(tenant, blobId)
    if (pending.has(filePath)) return existingBlob(blobId, filePath)
    const writing = ensureDirectoryOf(filePath).then(() => writeFile(filePath, content, { flag: 'wx' }))
    track(filePath, writing)
    try {
      await writing
    } catch (error) {
      if (errorCode(error) === 'EEXIST') return existingBlob(blobId, filePath)
      // We created the file and failed part-way: leave no truncated blob behind for a reuse.
      await unlink(filePath).catch(() => undefined)
      throw error
    }
    return { blobId, path: filePath, size: Buffer.byteLength(content) }
  }

  async function openWriteStream(tenant: string, blobId: string): Promise<BlobStream> {
    const filePath = blobPath(tenant, blobId)
    if (pending.has(filePath)) return reuseStream(blobId, filePath)
    let settle = () => {}
    track(filePath, new Promise<void>((resolve) => (settle = resolve)))
    let handle: FileHandle
    try {
      await ensureDirectoryOf(filePath)
      handle = await open(filePath, 'wx')
    } catch (error) {
      settle()
      if (errorCode(error) === 'EEXIST') return reuseStream(blobId, filePath)
      throw error
    }
    const stream = handle.createWriteStream()
    const finished = new Promise<BlobRef>((resolve, reject) => {
      let failure: unknown
      stream.once('error', (error) => (failure = error))
      stream.once('close', () => {
        const completed = failure === undefined && stream.writableFinished
        const outcome = completed
          ? statFile(blobId, filePath).then((ref) => ref ?? Promise.reject(new Error(`Blob ${blobId} vanished`)))
          : unlink(filePath)
              .catch(() => undefined)
              .then(() => Promise.reject(failure ?? new Error(`Blob stream ${blobId} closed before it finished`)))
        outcome.then(resolve, reject).finally(settle)
      })
    })
    // The caller may never await `finished` (e.g. it gave up on the run): no unhandled rejection.
    finished.catch(() => undefined)
    return { blobId, path: filePath, stream, finished }
  }

  /** The id is taken: accept and discard the caller's bytes, then report the blob already there. */
  function reuseStream(blobId: string, filePath: string): BlobStream {
    const stream = new Writable({ write: (_chunk, _encoding, callback) => callback() })
    const finished = new Promise<BlobRef>((resolve, reject) => {
      stream.once('close', () => existingBlob(blobId, filePath).then(resolve, reject))
    })
    finished.catch(() => undefined)
    return { blobId, path: filePath, stream, finished }
  }

  async function stat(tenant: string, blobId: string): Promise<BlobRef | null> {
    assertValidTenant(tenant)
    if (!isValidBlobId(blobId)) return null
    return statFile(blobId, path.join(root, tenant, blobId))
  }

  async function sweep(at: number = now()): Promise<number> {
    let removed = 0
    for (const tenant of await listDirectory(root)) {
      if (!isValidTenant(tenant)) continue
      const tenantDirectory = path.join(root, tenant)
      for (const name of await listDirectory(tenantDirectory)) {
        // Only names this store could have written, and never a file still being written.
        const filePath = path.join(tenantDirectory, name)
        if (!isValidBlobId(name) || pending.has(filePath)) continue
        const stats = await lstat(filePath).catch(() => null)
        if (!stats?.isFile() || at - stats.mtimeMs <= ttlMs) continue
        try {
          await unlink(filePath)
          removed++
        } catch (error) {
          if (errorCode(error) !== 'ENOENT') throw error
        }
      }
    }
    return removed
  }

  function startSweeper(intervalMs: number): void {
    const stop = startIntervalSweeper(sweep, intervalMs, onSweepError)
    close()
    stopSweeper = stop
  }

  function close(): void {
    stopSweeper?.()
    stopSweeper = undefined
  }

  return { write, openWriteStream, directory, stat, sweep, startSweeper, close }
}

async function listDirectory(directoryPath: string): Promise<string[]> {
  try {
    return await readdir(directoryPath)
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return []
    throw error
  }
}
