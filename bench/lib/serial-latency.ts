/** One client, one request in flight: latencies in ms (performance.now) over `duration` seconds. */
import { Agent, request } from 'node:http'

export async function serialLatency(url: string, body: string, duration: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const target = new URL(url)
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const call = request(
        target,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (response) => {
          if (response.statusCode !== 200) reject(new Error(`${url}: ${response.statusCode}`))
          response.resume()
          response.on('end', resolve)
        },
      )
      call.on('error', reject)
      call.end(body)
    })
  const latencies: number[] = []
  const until = performance.now() + duration * 1000
  while (performance.now() < until) {
    const started = performance.now()
    await once()
    latencies.push(performance.now() - started)
  }
  agent.destroy()
  latencies.sort((a, b) => a - b)
  const at = (share: number) => Math.round((latencies[Math.floor(latencies.length * share)] as number) * 1000) / 1000
  return { p50: at(0.5), p99: at(0.99), requests: latencies.length }
}
