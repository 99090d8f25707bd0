import fp from 'fastify-plugin'
import { createHttpMetrics } from '../src/metrics/http-metrics.js'
import { createRunMetrics } from '../src/metrics/run-metrics.js'
import { registerWarmSandboxMetrics } from '../src/metrics/warm-sandbox-metrics.js'
import { warmSandboxes } from '../src/tools/bash/warm-sandboxes.js'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: ReturnType<typeof createRunMetrics>
  }
}

/**
 * Prometheus metrics (served by routes/metrics.ts): the registry and HTTP requests by route and
 * status. Registered early so the blob store and the run manager can count into it; what runs
 * tell is wired after the run manager, by plugins/run-metrics.ts.
 */
export const metricsPlugin = fp(
  async (app) => {
    const metrics = createRunMetrics()
    const http = createHttpMetrics(metrics.registry)
    registerWarmSandboxMetrics(metrics.registry, () => warmSandboxes.state())
    app.decorate('metrics', metrics)
    app.addHook('onResponse', (request, reply, done) => {
      // WebSocket upgrades stay open for the connection's life: their "duration" is not a request's.
      if (reply.statusCode !== 101) {
        http.observe(request.method, request.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000)
      }
      done()
    })
  },
  { name: 'metrics', dependencies: ['config'] },
)
