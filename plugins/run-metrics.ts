import fp from 'fastify-plugin'
import { Counter, Gauge } from 'prom-client'

/**
 * What runs tell the metrics: every stored run event, tool names labelled only when the tool pool
 * knows them, and the gauges and counters read from the admission caps and the blob store's health
 * when scraped (docs/adr/0120-admission-control.md). Separate from the metrics plugin, which
 * registers before the blob store and run manager so they can count into it; this reads them, so
 * it comes after and says so.
 */
export const runMetricsPlugin = fp(
  async (app) => {
    const { admission, metrics, runManager, toolPool } = app
    metrics.knowTools((name) => toolPool.isKnownTool(name))
    const stop = runManager.onEvent((event) => metrics.observe(event))
    app.addHook('onClose', async () => stop())
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
  { name: 'run-metrics', dependencies: ['metrics', 'tool-pool', 'run-manager', 'blob-store'] },
)
