import fp from 'fastify-plugin'
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
    const timer = setInterval(() => {
      sweepStores(stores, { maxRetainedRuns, sessionIdleTtlMs }).then(
        (removed) => {
          if (removed.runs + removed.sessions > 0) app.log.debug(removed, 'swept expired runs and sessions')
        },
        (error: unknown) => app.log.error({ err: error }, 'sweeping the stores failed'),
      )
    }, sweepIntervalMs)
    timer.unref()
    app.addHook('onClose', async () => clearInterval(timer))
  },
  { name: 'stores', dependencies: ['config'] },
)
