import fp from 'fastify-plugin'
import { createFileBlobStore } from '../src/results/file-blob-store.js'

declare module 'fastify' {
  interface FastifyInstance {
    blobStore: ReturnType<typeof createFileBlobStore>
  }
}

/** Oversized results on disk, one directory per tenant, removed after TOOLEXEC_BLOB_TTL_MS. */
export const blobStorePlugin = fp(
  async (app) => {
    const { blobDir, blobTtlMs, sweepIntervalMs } = app.config
    const blobStore = createFileBlobStore({
      root: blobDir,
      ttlMs: blobTtlMs,
      onSweepError: (error) => app.log.error({ err: error }, 'sweeping blobs failed'),
    })
    blobStore.startSweeper(sweepIntervalMs)
    app.decorate('blobStore', blobStore)
    app.addHook('onClose', async () => blobStore.close())
  },
  { name: 'blob-store', dependencies: ['config'] },
)
