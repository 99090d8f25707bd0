import { ConfigError } from '../../errors/config-error.js'
import type { Logger } from '../../logging/logger.js'
import type { StoreBackend } from '../stores.js'
import { checkSharedVolumes } from './check-shared-volumes.js'
import { createRedisStores } from './redis-stores.js'

/** How long the start waits for Redis before it serves anyway (unready) and checks later. */
const STARTUP_CHECK_MS = 5000

/**
 * The Redis backend (TOOLEXEC_REDIS_URL; docs/operations.md, "Scale-out on Redis"): every store
 * on one Redis, expiring by TTL, and the coordination between instances. It owns its start-up:
 * instances on one Redis must share the workspace and blob directories, so that is checked
 * first. A mismatch stops the start (`ConfigError`); a Redis that does not answer within 5 s lets
 * the service start unready (the coordination refuses new runs) and is checked once it answers.
 */
export const redisBackend: StoreBackend = async (options, log) => {
  if (options.redisUrl === undefined) throw new ConfigError('TOOLEXEC_REDIS_URL', 'is required by the redis backend')
  const redis = createRedisStores({
    url: options.redisUrl,
    maxRetainedRuns: options.maxRetainedRuns,
    sessionIdleTtlMs: options.sessionIdleTtlMs,
    runTtlMs: options.runTtlMs,
    leaseMs: options.instanceLeaseMs,
    ...(options.auditTtlMs === undefined ? {} : { auditTtlMs: options.auditTtlMs }),
    ...(options.auditMaxRecords === undefined ? {} : { auditMaxRecords: options.auditMaxRecords }),
  })
  const check = () => checkSharedVolumes(redis.redis, options)
  const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, STARTUP_CHECK_MS, 'timeout').unref())
  const outcome = await Promise.race([check(), timeout])
  if (outcome === 'timeout') {
    log.warn({}, 'redis is unreachable at start: serving unready until it answers')
    redis.coordination.refuse('waiting for redis to check the shared volumes')
    redis.redis.once('ready', () => void checkWhenReady(check, redis.coordination.refuse, log))
  } else if (outcome !== undefined) {
    await redis.close()
    throw new ConfigError(outcome.variable, outcome.problem)
  }
  return {
    stores: redis.stores,
    coordination: redis.coordination,
    description: { backend: 'redis', instanceId: redis.instanceId },
    close: () => redis.close(),
  }
}

/** The deferred shared-volume check: clears the refusal, or keeps this instance out of runs. */
async function checkWhenReady(
  check: () => ReturnType<typeof checkSharedVolumes>,
  refuse: (reason: string | undefined) => void,
  log: Logger,
): Promise<void> {
  try {
    const mismatch = await check()
    if (mismatch) {
      log.error(mismatch, 'shared volume mismatch: this instance takes no runs')
      refuse(`${mismatch.variable}: ${mismatch.problem}`)
    } else refuse(undefined)
  } catch (error) {
    log.error({ err: error }, 'checking the shared volumes failed')
  }
}
