import fp from 'fastify-plugin'
import { createRunMetrics } from '../src/metrics/run-metrics.js'

declare module 'fastify' {
  interface FastifyInstance {
    metrics: ReturnType<typeof createRunMetrics>
  }
}

/** Prometheus metrics fed by every run's events (served by routes/metrics.ts). */
export const metricsPlugin = fp(
  async (app) => {
    const metrics = createRunMetrics({ isKnownTool: (name) => app.toolPool.isKnownTool(name) })
    app.decorate('metrics', metrics)
    const stop = app.runManager.onEvent((event) => metrics.observe(event))
    app.addHook('onClose', async () => stop())
  },
  { name: 'metrics', dependencies: ['run-manager', 'tool-pool'] },
)
