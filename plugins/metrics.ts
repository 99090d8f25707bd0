import fp from 'fastify-plugin'
import { Counter, Gauge } from 'prom-client'
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
    const { admission } = app
    new Counter({
      name: 'toolexec_admission_refused_total',
      help: 'Runs refused at admission: tenant (429, over its share) or instance (503, full)',
      labelNames: ['scope'],
      registers: [metrics.registry],
      collect() {
        const stats = admission.stats()
        this.reset()
        this.inc({ scope: 'tenant' }, stats.refusedTenant)
        this.inc({ scope: 'instance' }, stats.refusedInstance)
      },
    })
    new Gauge({
      name: 'toolexec_calls_in_flight',
      help: 'Calls admitted and not yet answered, on the whole instance',
      registers: [metrics.registry],
      collect() {
        this.set(admission.stats().calls)
      },
    })
    const blobHealth = app.blobStore.health
    new Counter({
      name: 'toolexec_blob_write_failures_total',
      help: 'Blob writes the file system refused (full or read-only blob directory)',
      registers: [metrics.registry],
      collect() {
        this.reset()
        this.inc(blobHealth.failures)
      },
    })
    const stop = app.runManager.onEvent((event) => metrics.observe(event))
    app.addHook('onClose', async () => stop())
  },
  { name: 'metrics', dependencies: ['run-manager', 'tool-pool', 'blob-store'] },
)
