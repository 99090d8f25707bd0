/**
 * Calls per second against a peer measured in the same run: POST /v1/runs with 10-call no-op
 * batches (`node dist/server.js`) versus the MCP SDK's stateless Streamable HTTP server
 * (bench/servers/mcp-peer-server.ts) serving a no-op tool to the SDK's own client, both with
 * the same number of requests in flight. The load generators run in this process.
 *
 *   npx tsx bench/mcp-peer.ts [--duration 5] [--concurrency 50]
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { load } from './lib/load.js'
import { noopBatch } from './lib/noop-batch.js'
import { emitFigures, type Figure, ratioFigure } from './lib/report.js'
import { startProcess, startService } from './lib/server-process.js'

/** `concurrency` SDK clients, each calling the tool in a loop for `duration` seconds. */
async function mcpCallsPerSecond(url: string, concurrency: number, duration: number): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: concurrency }, async () => {
      const client = new Client({ name: 'bench', version: '1.0.0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))
      return client
    }),
  )
  let calls = 0
  const until = performance.now() + duration * 1000
  const started = performance.now()
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < until) {
        const result = await client.callTool({ name: 'noop', arguments: {} })
        if (result.isError) throw new Error('the peer answered an error')
        calls += 1
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  await Promise.all(clients.map((client) => client.close()))
  return calls / elapsed
}

export async function mcpPeer(duration: number, concurrency: number): Promise<Figure[]> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-'))
  const service = await startService(scratch)
  const peer = await startProcess({
    script: 'bench/servers/mcp-peer-server.ts',
    nodeOptions: ['--import', 'tsx'],
    probePath: '/healthz',
  })
  try {
    await mcpCallsPerSecond(peer.url, concurrency, 1)
    await load({ url: `${service.url}/v1/runs`, body: noopBatch(10), connections: concurrency, duration: 1 })
    const peerRate = await mcpCallsPerSecond(peer.url, concurrency, duration)
    const batches = await load({
      url: `${service.url}/v1/runs`,
      body: noopBatch(10),
      connections: concurrency,
      duration,
    })
    return [
      ratioFigure({
        name: `calls/s through POST /v1/runs (10-call batches), ${concurrency} in flight`,
        unit: 'calls/s',
        value: batches.requestsPerSecond * 10,
        baselineName: 'MCP SDK Streamable HTTP server (stateless, JSON), same concurrency',
        baseline: peerRate,
        goal: { atLeast: 30 },
      }),
    ]
  } finally {
    await service.stop()
    await peer.stop()
    await rm(scratch, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { duration: { type: 'string', default: '5' }, concurrency: { type: 'string', default: '50' } },
  })
  emitFigures(await mcpPeer(Number(values.duration), Number(values.concurrency)))
}
