import { Counter, Histogram, type Registry } from 'prom-client'

/**
 * HTTP request metrics by method, route and status, under the names most dashboards expect.
 * `route` is the route's pattern (`/v1/runs/:id`), never the raw URL: a client cannot create
 * series by inventing paths (unmatched requests share one label).
 */
export function createHttpMetrics(registry: Registry) {
  const registers = [registry]
  const labelNames = ['method', 'route', 'status_code'] as const
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route pattern and status code',
    labelNames,
    registers,
  })
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration until the response was sent, by method, route pattern and status code',
    labelNames,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60],
    registers,
  })
  // Each (method, route, status) gets its children once: labelled calls hash and sort their
  // labels every time (docs/adr/0155-cheaper-hot-path-bookkeeping.md). The key space is bounded
  // as the labels are: route patterns, not URLs.
  const children = new Map<string, { requests: { inc(): void }; duration: { observe(value: number): void } }>()
  return {
    observe(method: string, route: string | undefined, statusCode: number, seconds: number): void {
      const key = `${method} ${statusCode} ${route}`
      let child = children.get(key)
      if (!child) {
        const labels = { method, route: route ?? 'unmatched', status_code: statusCode }
        child = { requests: requests.labels(labels), duration: duration.labels(labels) }
        children.set(key, child)
      }
      child.requests.inc()
      child.duration.observe(seconds)
    },
  }
}
