/**
 * HTTP overhead of POST /v1/runs: autocannon against the service with one no-op tool call per
 * request and with ten, versus a plain fastify route receiving the same body in this process.
 * Prints requests/s, latency and the ratio to the plain route.
 *
 *   npx tsx bench/http-runs.ts [--duration 5] [--connections 10]
 */
import { mkdtemp, rm } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import autocannon from 'autocannon'
import Fastify from 'fastify'
import { z } from 'zod'
import { buildApp } from '../app.js'
import { loadConfig } from '../src/config/load-config.js'
import { buildTool } from '../src/tool/build-tool.js'

const { values } = parseArgs({
  options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '10' } },
})
const duration = Number(values.duration)
const connections = Number(values.connections)

const noop = buildTool({
  name: 'Noop',
  inputSchema: z.strictObject({}),
  maxResultSizeChars: 100_000,
  description: async () => 'Does nothing',
  prompt: async () => 'Does nothing',
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  call: async () => ({ data: 'ok' }),
})

const body = (calls: number) =>
  JSON.stringify({
    tool_uses: Array.from({ length: calls }, (_unused, index) => ({
      type: 'tool_use',
      id: `toolu_${index}`,
      name: 'Noop',
      input: {},
    })),
  })

async function measure(url: string, payload: string) {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: payload,
    connections,
    duration,
  })
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors`)
  }
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 }
}

const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-'))
const service = await buildApp(
  loadConfig({
    TOOLEXEC_WORKSPACE: path.join(scratch, 'workspace'),
    TOOLEXEC_BLOB_DIR: path.join(scratch, 'blobs'),
    TOOLEXEC_SANDBOX: 'off',
    LOG_LEVEL: 'silent',
  }),
  { extraTools: [noop] },
)
const plain = Fastify()
plain.post('/plain', async (request) => ({
  received: Array.isArray((request.body as { tool_uses?: unknown }).tool_uses),
}))

try {
  await service.listen({ host: '127.0.0.1', port: 0 })
  await plain.listen({ host: '127.0.0.1', port: 0 })
  const serviceUrl = `http://127.0.0.1:${(service.server.address() as AddressInfo).port}/v1/runs`
  const plainUrl = `http://127.0.0.1:${(plain.server.address() as AddressInfo).port}/plain`
  console.log(`autocannon: ${connections} connections, ${duration} s per measurement\n`)
  console.log('case                    req/s   p50 ms   p99 ms   vs plain')
  for (const calls of [1, 10]) {
    const payload = body(calls)
    const baseline = await measure(plainUrl, payload)
    const measured = await measure(serviceUrl, payload)
    const row = (name: string, stats: typeof baseline, ratio: string) =>
      console.log(
        `${name.padEnd(22)} ${stats.requestsPerSecond.toFixed(0).padStart(6)} ${String(stats.p50).padStart(8)} ${String(stats.p99).padStart(8)}   ${ratio}`,
      )
    row(`plain, ${calls} block(s)`, baseline, '1.00')
    row(`/v1/runs, ${calls} call(s)`, measured, (measured.requestsPerSecond / baseline.requestsPerSecond).toFixed(2))
  }
} finally {
  await service.close()
  await plain.close()
  await rm(scratch, { recursive: true, force: true })
}
