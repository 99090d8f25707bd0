/**
 * Event fan-out: 100 Server-Sent-Events subscribers on one run of `node dist/server.js`; each
 * event's delivery time is its arrival here minus its `ts` (one clock: same machine). Only
 * events stamped after every subscriber is connected count. Goal: p99 ≤ 10 ms. Its floor is the
 * same run watched by one subscriber, measured first against the same service. Three more rows
 * say where the time goes: the service's and this reader's main-thread CPU per write (each beside
 * the same with one subscriber), and the p99 this design can reach on this host
 * (docs/adr/0453-the-sse-bench-prints-its-decomposition.md). Three last rows split the slowest
 * 1 % of deliveries into their event's first arrival, this reader's collection pauses and the
 * rest of the fan-out (docs/adr/0456-the-sse-bench-splits-its-slowest-deliveries.md). One more
 * says how long both main threads waited for a core while streaming, per write, beside their CPU
 * (docs/adr/0570-the-sse-bench-says-how-long-both-sides-waited-for-a-core.md). Every stream, the
 * floor's and the 100, is read from a raw socket whose bytes are scanned for event ids as they
 * come (`bench/lib/sse-subscriber.ts`): the figure is the bytes' arrival, and a subscriber's HTTP
 * client and SSE parser, which 100 real subscribers would each run elsewhere, no longer take the
 * cores the service writes on (docs/adr/0600-the-sse-bench-reads-its-streams-from-raw-sockets.md).
 *
 *   npx tsx bench/event-subscribers.ts [subscribers=100] [profile-dir]
 *
 * A profile directory starts the server with `--cpu-prof` there (written when it stops).
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { type Delivery, type DeliveryTail, deliveryTail } from './lib/delivery-tail.js'
import { collectionsDuring, type GcPauses } from './lib/gc-pauses.js'
import { mainThreadCpuMs, mainThreadRunDelayMs } from './lib/process-cpu.js'
import { emitFigures } from './lib/report.js'
import { startService } from './lib/server-process.js'
import { subscribe } from './lib/sse-subscriber.js'

const subscribers = Number(process.argv[2] ?? 100)
// A full collection on demand, without starting the bench with --expose-gc.
setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void
const profile = process.argv[3] ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.argv[3])}`] : []
const bash = (command: string, index: number) => ({
  type: 'tool_use',
  id: `toolu_${command.replace(/\W/g, '')}_${index}`,
  name: 'Bash',
  input: { command },
})

const round = (value: number) => Math.round(value * 1000) / 1000

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number

type Deliveries = {
  delays: number[]
  spreads: number[]
  /**
   * The service's writes to a stream after every subscriber connected: the events of one turn of
   * its loop leave together (docs/adr/0156). Counted as the most socket reads of any stream (a
   * reader that falls behind gets two turns in one read, one that keeps up does not).
   */
  writes: number
  /** CPU the service's and this process's main threads used from then until every stream ended, ms. */
  serviceCpuMs: number
  readerCpuMs: number
  /**
   * Time the service's and this process's main threads spent runnable but waiting for a core in
   * that time, ms (docs/adr/0570-the-sse-bench-says-how-long-both-sides-waited-for-a-core.md).
   */
  serviceWaitMs: number
  readerWaitMs: number
  /** This process's collection pauses in that time. */
  readerGc: GcPauses
  /** Where the deliveries at or above the p99 spent their time (docs/adr/0456). */
  tail: DeliveryTail
}

/**
 * One run of Bash calls watched by `count` subscribers; the sorted delays of the events stamped
 * after every subscriber connected.
 */
async function deliveries(serviceUrl: string, servicePid: number | undefined, count: number): Promise<Deliveries> {
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
  const stamps = new Map<number, number>()
  const streams = await Promise.all(
    Array.from({ length: count }, () => subscribe(`${serviceUrl}/v1/runs/${runId}/events`, stamps)),
  )
  // The connections' garbage collected before anything counts: the reader's pauses while streaming
  // are then its reading's own (docs/adr/0457-the-sse-bench-reader-collects-before-it-counts.md).
  collectGarbage()
  const connectedAt = Date.now()
  const serviceCpuBefore = await mainThreadCpuMs(servicePid)
  const readerCpuBefore = await mainThreadCpuMs(process.pid)
  const serviceWaitBefore = await mainThreadRunDelayMs(servicePid)
  const readerWaitBefore = await mainThreadRunDelayMs(process.pid)
  const {
    result: ended,
    gc: readerGc,
    intervals,
  } = await collectionsDuring(() => Promise.all(streams.map((stream) => stream.done)))
  const serviceCpuMs = (await mainThreadCpuMs(servicePid)) - serviceCpuBefore
  const readerCpuMs = (await mainThreadCpuMs(process.pid)) - readerCpuBefore
  const serviceWaitMs = (await mainThreadRunDelayMs(servicePid)) - serviceWaitBefore
  const readerWaitMs = (await mainThreadRunDelayMs(process.pid)) - readerWaitBefore
  const delays: number[] = []
  const counted: Delivery[] = []
  // Per event, the first and last arrival among the subscribers: their gap is the fan-out's own
  // share, whatever the event's source and the host did before the first write.
  const arrivals = new Map<number, { first: number; last: number }>()
  for (const { seqs, arrivals: arrived } of ended) {
    for (const [index, seq] of seqs.entries()) {
      const stamped = stamps.get(seq) as number
      if (stamped < connectedAt) continue
      const at = arrived[index] as number
      delays.push(at - stamped)
      counted.push({ seq, stamped, at })
      const seen = arrivals.get(seq)
      if (seen === undefined) arrivals.set(seq, { first: at, last: at })
      else {
        seen.first = Math.min(seen.first, at)
        seen.last = Math.max(seen.last, at)
      }
    }
  }
  if (delays.length === 0)
    throw new Error(
      `no event arrived after every subscriber connected (connecting took over 3 s: ${connectedAt - posted} ms)`,
    )
  const spreads = [...arrivals.values()].map(({ first, last }) => last - first)
  return {
    delays: delays.sort((a, b) => a - b),
    spreads: spreads.sort((a, b) => a - b),
    writes: Math.max(...ended.map(({ reads }) => reads.filter((read) => read >= connectedAt).length)),
    serviceCpuMs,
    readerCpuMs,
    serviceWaitMs,
    readerWaitMs,
    readerGc,
    tail: deliveryTail(counted, intervals, count),
  }
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
  const one = await deliveries(service.url, service.child.pid, 1)
  const many = await deliveries(service.url, service.child.pid, subscribers)
  const { delays, spreads } = many
  const floor = one.delays
  const p99 = percentile(delays, 0.99)
  const floorP99 = percentile(floor, 0.99)
  // CPU per write (one turn's events to every subscriber) after everyone connected; the
  // one-subscriber run carries the same Bash calls, so the difference is what writing and reading
  // 100 streams cost an event, in series (docs/adr/0453-the-sse-bench-prints-its-decomposition.md).
  const serviceCpu = many.serviceCpuMs / many.writes
  const serviceCpuFloor = one.serviceCpuMs / one.writes
  const readerCpu = many.readerCpuMs / many.writes
  const readerCpuFloor = one.readerCpuMs / one.writes
  const designP99 = floorP99 + Math.max(0, serviceCpu - serviceCpuFloor) + Math.max(0, readerCpu - readerCpuFloor)
  // What the fan-out of one write to every stream costs both sides in CPU: the slowest
  // deliveries' fan-out part beside it says how many writes' worth they waited (docs/adr/0456).
  const { tail } = many
  const writeCpu = Math.max(0, serviceCpu - serviceCpuFloor) + Math.max(0, readerCpu - readerCpuFloor)
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
    {
      name: `SSE fan-out to ${subscribers} subscribers: the service's main-thread CPU per write of a turn's events`,
      unit: 'ms',
      value: round(serviceCpu),
      baselineName: 'the same run with one subscriber, ms',
      baseline: round(serviceCpuFloor),
      details: {
        writes: round(many.writes),
        serviceCpuMs: many.serviceCpuMs,
        floorWrites: round(one.writes),
        floorServiceCpuMs: one.serviceCpuMs,
      },
    },
    {
      name: `SSE fan-out to ${subscribers} subscribers: the bench reader's main-thread CPU per write of a turn's events`,
      unit: 'ms',
      value: round(readerCpu),
      baselineName: 'the same run with one subscriber, ms',
      baseline: round(readerCpuFloor),
      details: {
        readerCpuMs: round(many.readerCpuMs),
        floorReaderCpuMs: round(one.readerCpuMs),
        readerGc: many.readerGc,
        floorReaderGc: one.readerGc,
      },
    },
    // Beside the CPU per write, the time both main threads were ready to run and had no core: on a
    // shared host what the slowest deliveries wait for is mostly this, the host's other work
    // (docs/adr/0570-the-sse-bench-says-how-long-both-sides-waited-for-a-core.md).
    {
      name: `SSE fan-out to ${subscribers} subscribers: the service's and the bench reader's main threads' wait for a core per write of a turn's events`,
      unit: 'ms',
      value: round((many.serviceWaitMs + many.readerWaitMs) / many.writes),
      baselineName: 'the same run with one subscriber, ms',
      baseline: round((one.serviceWaitMs + one.readerWaitMs) / one.writes),
      details: {
        serviceWaitMs: round(many.serviceWaitMs),
        readerWaitMs: round(many.readerWaitMs),
        floorServiceWaitMs: round(one.serviceWaitMs),
        floorReaderWaitMs: round(one.readerWaitMs),
      },
    },
    {
      name: `event delivery to ${subscribers} SSE subscribers: the p99 this design reaches here (floor p99 + both sides' extra CPU per write)`,
      unit: 'ms',
      value: round(designP99),
      baselineName: 'the same run with one subscriber, p99 ms',
      baseline: floorP99,
    },
    // The deliveries at or above the p99, their delay split in three parts that add up to it
    // (docs/adr/0456-the-sse-bench-splits-its-slowest-deliveries.md).
    {
      name: `event delivery to ${subscribers} SSE subscribers, the slowest 1 %: their event's first arrival on any stream (source, turn, one write and read), mean`,
      unit: 'ms',
      value: tail.firstArrivalMs,
      baselineName: 'the same run with one subscriber, p99 ms',
      baseline: floorP99,
      details: { ...tail },
    },
    {
      name: `event delivery to ${subscribers} SSE subscribers, the slowest 1 %: the bench reader's collection pauses after that first arrival, mean`,
      unit: 'ms',
      value: tail.readerPausesMs,
      baselineName: "the reader's longest pause while streaming, ms",
      baseline: many.readerGc.maxMs,
    },
    {
      name: `event delivery to ${subscribers} SSE subscribers, the slowest 1 %: the rest of the fan-out (the other streams' writes and reads, waiting for a core), mean`,
      unit: 'ms',
      value: tail.fanOutMs,
      baselineName: "both sides' extra CPU for one write to every stream, ms",
      baseline: round(writeCpu),
    },
  ])
} finally {
  await service.stop()
  await rm(scratch, { recursive: true, force: true })
}
