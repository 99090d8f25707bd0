/** One client, one request in flight: latencies in ms (performance.now) over `duration` seconds. */
import { Agent, request } from 'node:http'

export type LatencySummary = { p50: number; p99: number; requests: number }

/** p50 and p99 of latencies in ms, rounded to the microsecond. */
export function summarise(latencies: number[]): LatencySummary {
  const sorted = [...latencies].sort((a, b) => a - b)
  const at = (share: number) => Math.round((sorted[Math.floor(sorted.length * share)] as number) * 1000) / 1000
  return { p50: at(0.5), p99: at(0.99), requests: sorted.length }
}

/** Runs `once` back to back, at least once, for `duration` seconds and returns each run's latency in ms. */
export async function timeSerially(once: () => Promise<void>, duration: number): Promise<number[]> {
  const latencies: number[] = []
  const until = performance.now() + duration * 1000
  do {
    const started = performance.now()
    await once()
    latencies.push(performance.now() - started)
  } while (performance.now() < until)
  return latencies
}

/** A keep-alive client with one socket: `post(body)` resolves with the answer's body (status 200 or 201 only). */
export function jsonClient(url: string) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const target = new URL(url)
  const post = (body: string) =>
    new Promise<string>((resolve, reject) => {
      const call = request(
        target,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          if (response.statusCode !== 200 && response.statusCode !== 201)
            reject(new Error(`${url}: ${response.statusCode}`))
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
        },
      )
      call.on('error', reject)
      call.end(body)
    })
  return { post, close: () => agent.destroy() }
}

export async function serialLatency(url: string, body: string, duration: number): Promise<LatencySummary> {
  const client = jsonClient(url)
  try {
    return summarise(
      await timeSerially(async () => {
        await client.post(body)
      }, duration),
    )
  } finally {
    client.close()
  }
}
