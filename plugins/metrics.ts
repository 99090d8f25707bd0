import fp from 'fastify-plugin'
import { createHttpMetrics } from '../src/metrics/http-metrics.js'
import { createRunMetrics } from '../src/metrics/run-metrics.js'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: ReturnType<typeof createRunMetrics>
  }
}

/**
 * Prometheus metrics (served by routes/metrics.ts): HTTP requests by route and status, and what
 * every run's events tell. Registered early so the blob store and the run manager can count into
 * it; it reads the tool pool and subscribes to runs once every plugin is loaded.
 */
export const metricsPlugin = fp(
  async (app) => {
    const metrics = createRunMetrics({ isKnownTool: (name) => app.toolPool.isKnownTool(name) })
    const http = createHttpMetrics(metrics.registry)
    app.decorate('metrics', metrics)
    app.addHook('onResponse', (request, reply, done) => {
      // WebSocket upgrades stay open for the connection's life: their "duration" is not a request's.
      if (reply.statusCode !== 101) {
        http.observe(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000)
      }
      done()
    })
    let stop = () => {}
    app.addHook('onReady', async () => {
      stop = app.runManager.onEvent((event) => metrics.observe(event))
    })
    app.addHook('onClose', async () => stop())
  },
  { name: 'metrics', dependencies: ['config'] },
)
