/** autocannon with the checks every bench wants: no non-2xx answers, no errors. */
import autocannon from 'autocannon'

export type LoadFigures = { requestsPerSecond: number; p50: number; p99: number; requests: number }

export async function load(options: {
  url: string
  body: string
  connections: number
  duration: number
  headers?: Record<string, string>
}): Promise<LoadFigures> {
  const result = await autocannon({
    url: options.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    body: options.body,
    connections: options.connections,
    duration: options.duration,
  })
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(
      `${options.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors, ${result.timeouts} timeouts`,
    )
  }
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
  }
}
