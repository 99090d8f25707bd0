import fp from 'fastify-plugin'
import { Counter, Gauge } from 'prom-client'

/**
 * Gauges and counters read from the admission caps and the blob store's health when scraped
 * (docs/adr/0120-admission-control.md). Separate from the metrics plugin, which registers before
 * the blob store and run manager so they can count into it; these read them, so they come after.
 */
export const capacityMetricsPlugin = fp(
  async (app) => {
    const { admission, metrics } = app
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
  },
  { name: 'capacity-metrics', dependencies: ['metrics', 'run-manager', 'blob-store'] },
)
