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
      help: 'Runs refused at admission: tenant (429, over its share) or instance (503, full); asks denied over TOOLEXEC_MAX_WAITING_ASKS (waiting_asks)',
      labelNames: ['scope'],
      registers: [metrics.registry],
      collect() {
        const stats = admission.stats()
        this.reset()
        this.inc({ scope: 'tenant' }, stats.refusedTenant)
        this.inc({ scope: 'instance' }, stats.refusedInstance)
        this.inc({ scope: 'waiting_asks' }, stats.refusedAsks)
      },
    })
    new Gauge({
      name: 'toolexec_asks_waiting',
      help: 'Permission asks waiting for an answer on this instance (docs/permissions.md#asks-that-wait)',
      registers: [metrics.registry],
      collect() {
        this.set(runManager.waiting(Date.now()).asks)
      },
    })
    new Gauge({
      name: 'toolexec_oldest_ask_age_seconds',
      help: 'How long the oldest ask waiting on this instance has waited (0 with none)',
      registers: [metrics.registry],
      collect() {
        this.set(runManager.waiting(Date.now()).oldestAskAgeMs / 1000)
      },
    })
    new Gauge({
      name: 'toolexec_runs_stuck',
      help: 'Runs of this instance still going more than 5 s past their own deadline (timeout_ms)',
      registers: [metrics.registry],
      collect() {
        this.set(runManager.waiting(Date.now()).stuckRuns.length)
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
    new Counter({
      name: 'toolexec_audit_records_total',
      help: 'Audit records written since start, by sink (store: memory or Redis; file: TOOLEXEC_AUDIT_FILE)',
      labelNames: ['sink'],
      registers: [metrics.registry],
      collect() {
        const health = app.audit.health()
        this.reset()
        this.inc({ sink: 'store' }, health.store.written)
        if (health.file) this.inc({ sink: 'file' }, health.file.written)
      },
    })
    new Counter({
      name: 'toolexec_audit_dropped_total',
      help: 'Audit records a sink could not write (store unreachable, disk full); calls never wait for them',
      labelNames: ['sink'],
      registers: [metrics.registry],
      collect() {
        const health = app.audit.health()
        this.reset()
        this.inc({ sink: 'store' }, health.store.dropped)
        if (health.file) this.inc({ sink: 'file' }, health.file.dropped)
      },
    })
    new Gauge({
      name: 'toolexec_audit_sink_up',
      help: '1 while the last write of the audit sink succeeded',
      labelNames: ['sink'],
      registers: [metrics.registry],
      collect() {
        const health = app.audit.health()
        this.set({ sink: 'store' }, health.store.ok ? 1 : 0)
        if (health.file) this.set({ sink: 'file' }, health.file.ok ? 1 : 0)
      },
    })
    const webhook = app.askWebhook
    if (webhook) {
      new Counter({
        name: 'toolexec_ask_webhook_deliveries_total',
        help: 'Ask webhook deliveries: delivered, failed (given up after the last attempt or refused), dropped (queue full)',
        labelNames: ['outcome'],
        registers: [metrics.registry],
        collect() {
          const stats = webhook.stats()
          this.reset()
          this.inc({ outcome: 'delivered' }, stats.delivered)
          this.inc({ outcome: 'failed' }, stats.failed)
          this.inc({ outcome: 'dropped' }, stats.dropped)
        },
      })
      new Counter({
        name: 'toolexec_ask_webhook_retries_total',
        help: 'Ask webhook attempts retried after a network error, a timeout, 429 or 5xx',
        registers: [metrics.registry],
        collect() {
          this.reset()
          this.inc(webhook.stats().retried)
        },
      })
    }
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
  { name: 'run-metrics', dependencies: ['metrics', 'tool-pool', 'run-manager', 'blob-store', 'audit'] },
)
