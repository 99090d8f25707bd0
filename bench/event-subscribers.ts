/**
 * Event fan-out: 100 Server-Sent-Events subscribers on one run of `node dist/server.js`; each
 * event's delivery time is its arrival here minus its `ts` (one clock: same machine). Only
 * events stamped after every subscriber is connected count. Goal: p99 ≤ 10 ms. Its floor is the
 * same run watched by one subscriber, measured first against the same service.
 *
 *   npx tsx bench/event-subscribers.ts [subscribers=100] [profile-dir]
 *
 * A profile directory starts the server with `--cpu-prof` there (written when it stops).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { createParser } from 'eventsource-parser'
import { emitFigures } from './lib/report.js'
import { startService } from './lib/server-process.js'

const subscribers = Number(process.argv[2] ?? 100)
const profile = process.argv[3] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.argv[3])}`] : []
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

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number

/**
 * One run of Bash calls watched by `count` subscribers; the sorted delays of the events stamped
 * after every subscriber connected.
 */
async function deliveries(serviceUrl: string, count: number): Promise<{ delays: number[]; spreads: number[] }> {
  // Ten slow calls first (time to connect everyone), then a steady stream of short ones.
  const blocks = [
    ...Array.from({ length: 10 }, (_unused, index) => bash('sleep 3', index)),
    ...Array.from({ length: 100 }, (_unused, index) => bash('sleep 0.05', index)),
  ]
  const posted = Date.now()
  const created = await fetch(`${serviceUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wait: false, tool_uses: blocks }),
  })
  const { run_id: runId } = (await created.json()) as { run_id: string }
  const streams = await Promise.all(
    Array.from({ length: count }, () => subscribe(`${serviceUrl}/v1/runs/${runId}/events`)),
  )
  const connectedAt = Date.now()
  const delays: number[] = []
  // Per event, the first and last arrival among the subscribers: their gap is the fan-out's own
  // share, whatever the event's source and the host did before the first write.
  const arrivals = new Map<number, { first: number; last: number }>()
  for (const events of await Promise.all(streams.map((stream) => stream.done))) {
    for (const { data, arrived } of events) {
      const event = JSON.parse(data) as { ts: string; seq: number }
      const stamped = Date.parse(event.ts)
      if (stamped < connectedAt) continue
      delays.push(arrived - stamped)
      const seen = arrivals.get(event.seq)
      if (seen === undefined) arrivals.set(event.seq, { first: arrived, last: arrived })
      else {
        seen.first = Math.min(seen.first, arrived)
        seen.last = Math.max(seen.last, arrived)
      }
    }
  }
  if (delays.length === 0)
    throw new Error(
      `no event arrived after every subscriber connected (connecting took over 3 s: ${connectedAt - posted} ms)`,
    )
  const spreads = [...arrivals.values()].map(({ first, last }) => last - first)
  return { delays: delays.sort((a, b) => a - b), spreads: spreads.sort((a, b) => a - b) }
}

const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-bench-'))
// One run watched by `subscribers` clients: above the default cap of 16 per run
// (docs/adr/0126-slow-subscribers-are-cut-off-by-bytes.md), so this bench raises it.
const service = await startService(
  scratch,
  {
    TOOLEXEC_MAX_SUBSCRIBERS_PER_RUN: String(subscribers + 10),
    TOOLEXEC_MAX_SUBSCRIBERS_PER_TENANT: String(subscribers + 10),
  },
  profile,
)
try {
  // The floor: the same run, same service, one subscriber. The events' source (Bash processes on
  // the same cores) and the host's load show in both; what the fan-out to `subscribers` adds
  // shows in the difference (docs/adr/0381-the-sse-figure-has-a-one-subscriber-floor.md).
  const { delays: floor } = await deliveries(service.url, 1)
  const { delays, spreads } = await deliveries(service.url, subscribers)
  const p99 = percentile(delays, 0.99)
  const floorP99 = percentile(floor, 0.99)
  emitFigures([
    {
      name: `event delivery to ${subscribers} SSE subscribers of one run: p99`,
      unit: 'ms',
      value: p99,
      baselineName: 'the same run with one subscriber, p99 ms',
      baseline: floorP99,
      goal: { atMost: 10 },
      met: p99 <= 10,
      details: {
        deliveries: delays.length,
        p50Ms: percentile(delays, 0.5),
        maxMs: delays.at(-1),
        fanOutSpread: { p50Ms: percentile(spreads, 0.5), p99Ms: percentile(spreads, 0.99), maxMs: spreads.at(-1) },
        floor: { deliveries: floor.length, p50Ms: percentile(floor, 0.5), p99Ms: floorP99, maxMs: floor.at(-1) },
      },
    },
  ])
} finally {
  await service.stop()
  await rm(scratch, { recursive: true, force: true })
}
