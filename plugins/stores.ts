import fp from 'fastify-plugin'
import { memoryBackend } from '../src/stores/memory/open-memory-stores.js'
import { redisBackend } from '../src/stores/redis/open-redis-stores.js'
import type { RunCoordination } from '../src/stores/run-coordination.js'
import type { StoreBackend, Stores } from '../src/stores/stores.js'

declare module 'fastify' {
  interface FastifyInstance {
    stores: Stores
    /** Set with TOOLEXEC_REDIS_URL: the other instances on the same Redis. */
    coordination: RunCoordination | undefined
  }
}

/**
 * Run, event, session and idempotency stores from one backend: in memory, or on Redis with
 * TOOLEXEC_REDIS_URL. Each backend is a folder of `src/stores/` whose factory owns its start-up
 * and readiness (docs/adr/0286-one-folder-per-store-backend.md); this plugin only picks one.
 */
export const storesPlugin = fp<{ stores?: Stores | undefined }>(
  async (app, options) => {
    const { config } = app
    const backends: Record<'memory' | 'redis', StoreBackend> = {
      memory: memoryBackend(options.stores),
      redis: redisBackend,
    }
    // Stores a test hands in are memory stores, whatever the environment says.
    const backend = config.redisUrl !== undefined && options.stores === undefined ? 'redis' : 'memory'
    const opened = await backends[backend](
      {
        maxRetainedRuns: config.maxRetainedRuns,
        sessionIdleTtlMs: config.sessionIdleTtlMs,
        sweepIntervalMs: config.sweepIntervalMs,
        runTtlMs: config.runTtlMs,
        instanceLeaseMs: config.instanceLeaseMs,
        redisUrl: config.redisUrl,
        workspace: config.workspace,
        blobDir: config.blobDir,
        auditTtlMs: config.audit.ttlMs,
        auditMaxRecords: config.audit.maxRecords,
      },
      app.log,
    )
    app.decorate('stores', opened.stores)
    app.decorate('coordination', opened.coordination)
    app.addHook('onClose', async () => opened.close())
    if (backend === 'redis') app.log.info(opened.description, 'stores on redis')
  },
  { name: 'stores', dependencies: ['config'] },
)
