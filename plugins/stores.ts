import fp from 'fastify-plugin'
import { startSweeper } from '../src/async/start-sweeper.js'
import { ConfigError } from '../src/errors/config-error.js'
import { checkSharedVolumes } from '../src/stores/check-shared-volumes.js'
import { createRedisStores } from '../src/stores/redis-stores.js'
import type { RunCoordination } from '../src/stores/run-coordination.js'
import { createMemoryStores, type Stores, sweepStores } from '../src/stores/stores.js'

declare module 'fastify' {
  interface FastifyInstance {
    stores: Stores
    /** Set with TOOLEXEC_REDIS_URL: the other instances on the same Redis. */
    coordination: RunCoordination | undefined
  }
}

/** How long the start waits for Redis before it serves anyway (unready) and checks later. */
const STARTUP_CHECK_MS = 5000

/**
 * Run, event, session and idempotency stores: in memory (swept on a timer), or on Redis with
 * TOOLEXEC_REDIS_URL (expiring by TTL; docs/operations.md, "Scale-out on Redis").
 */
export const storesPlugin = fp<{ stores?: Stores | undefined }>(
  async (app, options) => {
    const { maxRetainedRuns, sessionIdleTtlMs, sweepIntervalMs, redisUrl } = app.config
    if (redisUrl !== undefined && options.stores === undefined) {
      const redis = createRedisStores({
        url: redisUrl,
        maxRetainedRuns,
        sessionIdleTtlMs,
        runTtlMs: app.config.runTtlMs,
        leaseMs: app.config.instanceLeaseMs,
      })
      app.decorate('stores', redis.stores)
      app.decorate('coordination', redis.coordination)
      app.addHook('onClose', async () => redis.close())
      const check = () => checkSharedVolumes(redis.redis, app.config)
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, STARTUP_CHECK_MS, 'timeout').unref())
      const outcome = await Promise.race([check(), timeout])
      if (outcome === 'timeout') {
        app.log.warn('redis is unreachable at start: serving unready until it answers')
        // Until the check has passed, new runs are refused (coordination.available()).
        redis.coordination.refuse('waiting for redis to check the shared volumes')
        redis.redis.once('ready', () => {
          check()
            .then((mismatch) => {
              if (mismatch) {
                app.log.error(mismatch, 'shared volume mismatch: this instance takes no runs')
                redis.coordination.refuse(`${mismatch.variable}: ${mismatch.problem}`)
              } else redis.coordination.refuse(undefined)
            })
            .catch((error: unknown) => app.log.error({ err: error }, 'checking the shared volumes failed'))
        })
      } else if (outcome !== undefined) {
        await redis.close()
        throw new ConfigError(outcome.variable, outcome.problem)
      }
      app.log.info({ instanceId: redis.instanceId }, 'stores on redis')
      return
    }
    const stores = options.stores ?? createMemoryStores({ maxRetainedRuns })
    app.decorate('stores', stores)
    app.decorate('coordination', undefined)
    const stop = startSweeper(
      async () => {
        const removed = await sweepStores(stores, { maxRetainedRuns, sessionIdleTtlMs })
        if (removed.runs + removed.sessions > 0) app.log.debug(removed, 'swept expired runs and sessions')
      },
      sweepIntervalMs,
      (error) => app.log.error({ err: error }, 'sweeping the stores failed'),
    )
    app.addHook('onClose', async () => stop())
  },
  { name: 'stores', dependencies: ['config'] },
)
