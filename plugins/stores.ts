import fp from 'fastify-plugin'
import { startSweeper } from '../src/async/start-sweeper.js'
import { createMemoryStores, type Stores, sweepStores } from '../src/stores/stores.js'

declare module 'fastify' {
  interface FastifyInstance {
    stores: Stores
  }
}

/** Run, event, session and idempotency stores (in memory), swept on a timer. */
export const storesPlugin = fp<{ stores?: Stores }>(
  async (app, options) => {
    const { maxRetainedRuns, sessionIdleTtlMs, sweepIntervalMs } = app.config
    const stores = options.stores ?? createMemoryStores({ maxRetainedRuns })
    app.decorate('stores', stores)
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
