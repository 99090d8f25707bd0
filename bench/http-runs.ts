/**
 * HTTP overhead of POST /v1/runs: autocannon (this process) against the service (`node
 * dist/server.js`, its own process) with 1 and 10 no-op calls per request at 50 connections,
 * versus a plain fastify route parsing the same body in a third process; then one client in
 * flight with a 10-call batch (p50 end to end).
 *
 *   npx tsx bench/http-runs.ts [--duration 5] [--connections 50]
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { load } from './lib/load.js'
import { noopBatch } from './lib/noop-batch.js'
import { cpuPerRequest } from './lib/process-cpu.js'
import { emitFigures, type Figure, ratioFigure } from './lib/report.js'
import { serialLatency } from './lib/serial-latency.js'
import { startProcess, startRouteShell, startService } from './lib/server-process.js'

export async function httpRuns(duration: number, connections: number): Promise<Figure[]> {
  const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-'))
  const service = await startService(scratch)
  const plain = await startProcess({
    script: 'bench/servers/plain-server.ts',
    nodeOptions: ['--import', 'tsx'],
    probePath: '/healthz',
  })
  const shell = await startRouteShell(scratch)
  const figures: Figure[] = []
  try {
    for (const [calls, goal] of [
      [1, 0.6],
      [10, 0.5],
    ] as const) {
      const body = noopBatch(calls)
      // Warm both (JIT, pools) before measuring.
      await load({ url: `${plain.url}/plain`, body, connections, duration: 1 })
      await load({ url: `${service.url}/v1/runs`, body, connections, duration: 1 })
      await load({ url: `${shell.url}/bench/route-shell`, body, connections, duration: 1 })
      // Each server's CPU per request beside its throughput (docs/adr/0490).
      const baseline = await cpuPerRequest(plain.child.pid, () =>
        load({ url: `${plain.url}/plain`, body, connections, duration }),
      )
      const measured = await cpuPerRequest(service.child.pid, () =>
        load({ url: `${service.url}/v1/runs`, body, connections, duration }),
      )
      const ceiling = await cpuPerRequest(shell.child.pid, () =>
        load({ url: `${shell.url}/bench/route-shell`, body, connections, duration }),
      )
      figures.push(
        ratioFigure({
          name: `POST /v1/runs, ${calls} no-op call(s), ${connections} connections`,
          unit: 'req/s',
          value: measured.requestsPerSecond,
          baselineName: 'plain fastify route, same body',
          baseline: baseline.requestsPerSecond,
          goal: { atLeast: goal },
          details: {
            p50Ms: measured.p50,
            p99Ms: measured.p99,
            baselineP50Ms: baseline.p50,
            baselineP99Ms: baseline.p99,
          },
        }),
        // No goal: the most the route could reach if the run cost nothing (docs/adr/0311).
        ratioFigure({
          name: `ceiling: the service's hooks, validation and serialiser with a constant answer, ${calls} call(s)`,
          unit: 'req/s',
          value: ceiling.requestsPerSecond,
          baselineName: 'plain fastify route, same body',
          baseline: baseline.requestsPerSecond,
          details: { p50Ms: ceiling.p50, p99Ms: ceiling.p99 },
        }),
        ...cpuFigures(calls, { plain: baseline, service: measured, ceiling }),
      )
    }
    const single = await serialLatency(`${service.url}/v1/runs`, noopBatch(10), duration)
    const singlePlain = await serialLatency(`${plain.url}/plain`, noopBatch(10), duration)
    figures.push({
      name: 'POST /v1/runs, 10 no-op calls, one client in flight: p50',
      unit: 'ms',
      value: single.p50,
      baselineName: 'plain fastify route p50',
      baseline: singlePlain.p50,
      goal: { atMost: 2 },
      met: single.p50 <= 2,
      details: { p99Ms: single.p99, requests: single.requests, baselineP99Ms: singlePlain.p99 },
    })
  } finally {
    await service.stop()
    await plain.stop()
    await shell.stop()
    await rm(scratch, { recursive: true, force: true })
  }
  return figures
}

/**
 * Where a request's CPU goes, measured in every run (docs/adr/0490): the plain route (HTTP and
 * JSON), the route's ceiling (the service's hooks, validation and serialiser) and the whole
 * service; the run's share is the service less its ceiling. No goals: they explain the ratios.
 */
function cpuFigures(calls: number, cpu: Record<'plain' | 'service' | 'ceiling', { cpuMicrosPerRequest: number }>) {
  const plain = cpu.plain.cpuMicrosPerRequest
  const service = cpu.service.cpuMicrosPerRequest
  const ceiling = cpu.ceiling.cpuMicrosPerRequest
  return [
    ratioFigure({
      name: `server CPU per request: POST /v1/runs, ${calls} no-op call(s)`,
      unit: 'µs',
      value: service,
      baselineName: 'the plain fastify route, same body',
      baseline: plain,
    }),
    ratioFigure({
      name: `server CPU per request: the ceiling (hooks, validation, serialiser), ${calls} call(s)`,
      unit: 'µs',
      value: ceiling,
      baselineName: 'the plain fastify route, same body',
      baseline: plain,
    }),
    ratioFigure({
      name: `server CPU per request: the run's share (service less its ceiling), ${calls} call(s)`,
      unit: 'µs',
      value: service - ceiling,
      baselineName: 'the ceiling',
      baseline: ceiling,
    }),
  ]
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: { duration: { type: 'string', default: '5' }, connections: { type: 'string', default: '50' } },
  })
  emitFigures(await httpRuns(Number(values.duration), Number(values.connections)))
}
