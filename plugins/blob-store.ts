import fp from 'fastify-plugin'
import { watchBlobHealth } from '../src/results/blob-health.js'
import type { BlobStore } from '../src/results/blob-store.js'
import { createFileBlobStore } from '../src/results/file-blob-store.js'

declare module 'fastify' {
  interface FastifyInstance {
    blobStore: ReturnType<typeof watchBlobHealth<ReturnType<typeof createFileBlobStore>>>
  }
}

/** Oversized results on disk, one directory per tenant, removed after TOOLEXEC_BLOB_TTL_MS. */
export const blobStorePlugin = fp(
  async (app) => {
    const { blobDir, blobTtlMs, sweepIntervalMs } = app.config
    const blobStore = watchBlobHealth(
      createFileBlobStore({
        root: blobDir,
        ttlMs: blobTtlMs,
        onSweepError: (error) => app.log.error({ err: error }, 'sweeping blobs failed'),
      }),
      blobDir,
    )
    blobStore.startSweeper(sweepIntervalMs)
    app.decorate(
      'blobStore',
      countBlobBytes(blobStore, (bytes) => app.metrics.blobWritten(bytes)),
    )
    app.addHook('onClose', async () => blobStore.close())
  },
  { name: 'blob-store', dependencies: ['config', 'metrics'] },
)

/** The same store, telling `onWritten` the size of every blob it writes (toolexec_blob_bytes_total). */
function countBlobBytes<Store extends BlobStore>(store: Store, onWritten: (bytes: number) => void): Store {
  return {
    ...store,
    write: async (tenant, blobId, content) => {
      const blob = await store.write(tenant, blobId, content)
      onWritten(blob.size)
      return blob
    },
    openWriteStream: async (tenant, blobId) => {
      const opened = await store.openWriteStream(tenant, blobId)
      const finished = opened.finished.then((blob) => {
        onWritten(blob.size)
        return blob
      })
      // A call that gives up on a stream the disk refused (ENOSPC) may never await `finished`:
      // its rejection is still delivered to whoever awaits it, but must not go unhandled.
      finished.catch(() => undefined)
      return { ...opened, finished }
    },
  }
}
