/**
 * Event fan-out: 100 Server-Sent-Events subscribers on one run of `node dist/server.js`; each
 * event's delivery time is its arrival here minus its `ts` (one clock: same machine). Only
 * events stamped after every subscriber is connected count. Goal: p99 < 10 ms.
 *
 *   npx tsx bench/event-subscribers.ts [subscribers=100]
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createParser } from 'eventsource-parser'
import { emitFigures } from './lib/report.js'
import { startService } from './lib/server-process.js'

const subscribers = Number(process.argv[2] ?? 100)
const bash = (command: string, index: number) => ({
  type: 'tool_use',
  id: `toolu_${command.replace(/\W/g, '')}_${index}`,
  name: 'Bash',
  input: { command },
})

/**
 * Resolves when the stream's head arrived; `done` when run.completed did, with every event and
 * the time its chunk came in. Chunks are only kept while the run goes on and parsed at the end:
 * parsing one subscriber's chunk in the 'data' handler delayed the reading of the 99 others, so
 * the bench measured its own parsing backlog (docs/adr/0156-event-fan-out-formats-once.md).
 */
function subscribe(url: string) {
  return new Promise<{ done: Promise<{ data: string; arrived: number }[]> }>((resolve, reject) => {
    const call = request(url, { headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`${url}: ${response.statusCode}`))
      const chunks: { text: string; arrived: number }[] = []
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => chunks.push({ text: chunk, arrived: Date.now() }))
      const done = new Promise<{ data: string; arrived: number }[]>((finish) =>
        response.on('end', () => {
          const events: { data: string; arrived: number }[] = []
          let arrived = 0
          const parser = createParser({ onEvent: (event) => events.push({ data: event.data, arrived }) })
          for (const chunk of chunks) {
            arrived = chunk.arrived
            parser.feed(chunk.text)
          }
          finish(events)
        }),
      )
      resolve({ done })
    })
    call.on('error', reject)
    call.end()
  })
}

const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-'))
// One run watched by `subscribers` clients: above the default cap of 16 per run
// (docs/adr/0126-slow-subscribers-are-cut-off-by-bytes.md), so this bench raises it.
const service = await startService(scratch, {
  TOOLEXEC_MAX_SUBSCRIBERS_PER_RUN: String(subscribers + 10),
  TOOLEXEC_MAX_SUBSCRIBERS_PER_TENANT: String(subscribers + 10),
})
try {
  // Ten slow calls first (time to connect everyone), then a steady stream of short ones.
  const blocks = [
    ...Array.from({ length: 10 }, (_unused, index) => bash('sleep 3', index)),
    ...Array.from({ length: 100 }, (_unused, index) => bash('sleep 0.05', index)),
  ]
  const posted = Date.now()
  const created = await fetch(`${service.url}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wait: false, tool_uses: blocks }),
  })
  const { run_id: runId } = (await created.json()) as { run_id: string }
  const streams = await Promise.all(
    Array.from({ length: subscribers }, () => subscribe(`${service.url}/v1/runs/${runId}/events`)),
  )
  const connectedAt = Date.now()
  const delays: number[] = []
  for (const events of await Promise.all(streams.map((stream) => stream.done))) {
    for (const { data, arrived } of events) {
      const stamped = Date.parse((JSON.parse(data) as { ts: string }).ts)
      if (stamped >= connectedAt) delays.push(arrived - stamped)
    }
  }
  if (delays.length === 0)
    throw new Error(
      `no event arrived after every subscriber connected (connecting took over 3 s: ${connectedAt - posted} ms)`,
    )
  delays.sort((a, b) => a - b)
  const p99 = delays[Math.min(delays.length - 1, Math.floor(delays.length * 0.99))] as number
  emitFigures([
    {
      name: `event delivery to ${subscribers} SSE subscribers of one run: p99`,
      unit: 'ms',
      value: p99,
      goal: { atMost: 10 },
      met: p99 < 10,
      details: {
        deliveries: delays.length,
        p50Ms: delays[Math.floor(delays.length / 2)],
        maxMs: delays.at(-1),
      },
    },
  ])
} finally {
  await service.stop()
  await rm(scratch, { recursive: true, force: true })
}
