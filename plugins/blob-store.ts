import fp from 'fastify-plugin'
import { watchBlobHealth } from '../src/results/blob-health.js'
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
    app.decorate('blobStore', blobStore)
    app.addHook('onClose', async () => blobStore.close())
  },
  { name: 'blob-store', dependencies: ['config'] },
)
