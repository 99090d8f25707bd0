import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { RunEvent } from '../events/run-event.js'

export type SubscriberTransport = 'websocket' | 'sse' | 'stream'

/**
 * Prometheus metrics derived from the run event stream, in a registry of their own (several
 * apps may live in one process, as in the tests). Node's process metrics keep their standard
 * names (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`…) so stock dashboards work;
 * toolexec's own carry the `toolexec_` prefix (docs/adr/0136-prometheus-metric-names.md).
 */
export type RunMetricsOptions = {
  /**
   * Whether a name is one of the service's tools. Block names come from clients: labelling by
   * anything else would let a client create unbounded metric series. Default: every name; the
   * service sets it with `knowTools` once its tool pool exists (plugins/run-metrics.ts).
   */
  isKnownTool?: (name: string) => boolean
}

export function createRunMetrics(options: RunMetricsOptions = {}) {
  let isKnownTool = options.isKnownTool ?? (() => true)
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const registers = [registry]
  const runs = new Counter({
    name: 'toolexec_runs_total',
    help: 'Runs by final status',
    labelNames: ['status'],
    registers,
  })
  // The three gauges below move on every event; they are plain numbers read at scrape time, so a
  // call costs no prom-client label hashing (docs/adr/0173-gauges-read-at-scrape-time.md).
  const live = { runs: 0, queued: 0, executing: 0 }
  new Gauge({
    name: 'toolexec_runs_active',
    help: 'Runs not yet completed',
    registers,
    collect() {
      this.set(live.runs)
    },
  })
  const calls = new Counter({
    name: 'toolexec_tool_calls_total',
    help: 'Tool calls by tool and outcome',
    labelNames: ['tool', 'outcome'],
    registers,
  })
  const duration = new Histogram({
    name: 'toolexec_tool_call_duration_seconds',
    help: 'Tool call duration from start to completion, less the time spent waiting for an approval',
    labelNames: ['tool'],
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 120, 600],
    registers,
  })
  new Gauge({
    name: 'toolexec_tool_calls_queued',
    help: 'Calls waiting to start',
    registers,
    collect() {
      this.set(live.queued)
    },
  })
  new Gauge({
    name: 'toolexec_tool_calls_executing',
    help: 'Calls executing now',
    registers,
    collect() {
      this.set(live.executing)
    },
  })
  const subscribers = new Gauge({
    name: 'toolexec_event_subscribers',
    help: 'Open event subscriptions by transport',
    labelNames: ['transport'],
    registers,
  })
  const asks = new Counter({
    name: 'toolexec_permission_asks_total',
    help: 'Permission asks sent to approvers',
    registers,
  })
  const denials = new Counter({
    name: 'toolexec_permission_denials_total',
    help: 'Calls denied by the permission gate (rules, mode, hooks or an approver)',
    labelNames: ['tool'],
    registers,
  })
  const hookFailures = new Counter({
    name: 'toolexec_hook_failures_total',
    help: 'Hook runs that failed (non-blocking: the call continued)',
    labelNames: ['event'],
    registers,
  })
  const blobBytes = new Counter({
    name: 'toolexec_blob_bytes_total',
    help: 'Bytes written to result blobs',
    registers,
  })
  /**
   * Each tool's labelled children, made once: labelled observations hash their labels on every
   * call, which showed in profiles (docs/adr/0155-cheaper-hot-path-bookkeeping.md).
   */
  const perTool = new Map<
    string,
    { success: { inc(): void }; error: { inc(): void }; duration: { observe(value: number): void } }
  >()
  const childrenOf = (tool: string) => {
    let children = perTool.get(tool)
    if (!children) {
      children = {
        success: calls.labels({ tool, outcome: 'success' }),
        error: calls.labels({ tool, outcome: 'error' }),
        duration: duration.labels({ tool }),
      }
      perTool.set(tool, children)
    }
    return children
  }
  /** Tool names by run, then tool_use_id, from `tool.queued` until `tool.completed`. */
  const names = new Map<string, Map<string, string>>()
  /** Open asks by `run_id/request_id`: the call they hold and when they were sent. */
  const openAsks = new Map<string, { call: string; since: number }>()
  /** Milliseconds each call spent waiting for approvers, by `run_id/tool_use_id` (only calls that waited). */
  const waited = new Map<string, number>()

  function observe(event: RunEvent): void {
    switch (event.type) {
      case 'run.started':
        live.runs++
        break
      case 'run.completed':
        live.runs--
        names.delete(event.run_id)
        runs.inc({ status: event.status })
        break
      case 'tool.queued': {
        let ofRun = names.get(event.run_id)
        if (!ofRun) {
          ofRun = new Map()
          names.set(event.run_id, ofRun)
        }
        ofRun.set(event.tool_use_id, isKnownTool(event.name) ? event.name : 'unknown')
        live.queued++
        break
      }
      case 'tool.started':
        live.queued--
        live.executing++
        break
      case 'tool.completed': {
        const ofRun = names.get(event.run_id)
        const tool = ofRun?.get(event.tool_use_id) ?? 'unknown'
        ofRun?.delete(event.tool_use_id)
        let waitedMs = 0
        if (waited.size > 0) {
          const key = `${event.run_id}/${event.tool_use_id}`
          waitedMs = waited.get(key) ?? 0
          waited.delete(key)
        }
        live.executing--
        const children = childrenOf(tool)
        ;(event.is_error ? children.error : children.success).inc()
        children.duration.observe(Math.max(0, event.duration_ms - waitedMs) / 1000)
        break
      }
      case 'permission.requested':
        asks.inc()
        openAsks.set(`${event.run_id}/${event.request_id}`, {
          call: `${event.run_id}/${event.tool_use_id}`,
          since: Date.parse(event.ts),
        })
        break
      case 'permission.resolved': {
        const askKey = `${event.run_id}/${event.request_id}`
        const ask = openAsks.get(askKey)
        if (!ask) break
        openAsks.delete(askKey)
        waited.set(ask.call, (waited.get(ask.call) ?? 0) + Math.max(0, Date.parse(event.ts) - ask.since))
        break
      }
    }
  }

  return {
    registry,
    observe,
    denied: (tool: string) => denials.inc({ tool: isKnownTool(tool) ? tool : 'unknown' }),
    /** Which tool names may label a series (the rest count as `unknown`). */
    knowTools(known: (name: string) => boolean): void {
      isKnownTool = known
    },
    hookFailed: (event: string) => hookFailures.inc({ event }),
    blobWritten: (bytes: number) => blobBytes.inc(bytes),
    subscriberOpened: (transport: SubscriberTransport) => subscribers.inc({ transport }),
    subscriberClosed: (transport: SubscriberTransport) => subscribers.dec({ transport }),
  }
}
