import type { Redis } from 'ioredis'
import { createEventClock } from '../../events/event-clock.js'
import type { RunEvent, RunEventBody } from '../../events/run-event.js'
import type { EventListener, EventStore } from '../event-store.js'
import { redisKeys } from './redis-keys.js'
import { subscribeOnReady } from './subscribe-on-ready.js'

/**
 * Appends a batch of one run's events, seqs ARGV[4]..ARGV[5] in order, as ONE stream entry whose
 * id is `0-<last seq>` and whose field `e` holds them all (docs/adr/0446-one-stream-entry-per-batch-of-events.md;
 * entries of one event, field `b`, from before are read alike). Publishes the last seq once, and
 * when the batch holds run.completed sets the stream's expiry (docs/adr/0114-batched-event-appends.md).
 * The batch must start right after the stream's end: a seq another writer took, or one that would
 * leave a gap, refuses it. Idempotent: a resend of a batch that already landed (ioredis resends
 * unanswered commands after a reconnect) finds the same entry and does nothing.
 * ARGV: channel, max length, expiry ('' for none), first seq, last seq, the batch's JSON.
 */
const APPEND_SCRIPT = `
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local expected = 1
if #last > 0 then expected = tonumber(string.match(last[1][1], '%d+$')) + 1 end
local first = tonumber(ARGV[4])
if first < expected then
  local existing = redis.call('XRANGE', KEYS[1], '0-' .. ARGV[5], '0-' .. ARGV[5])
  if #existing == 1 and existing[1][2][2] == ARGV[6] then return 0 end
  return redis.error_reply('SEQ_TAKEN')
end
if first > expected then return redis.error_reply('SEQ_TAKEN') end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '0-' .. ARGV[5], 'e', ARGV[6])
redis.call('PUBLISH', ARGV[1], ARGV[5])
if ARGV[3] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return tonumber(ARGV[5]) - first + 1
`

/** One event of a batch, stamped when appended; its seq comes when the batch is sent. */
type Pending = { body: RunEventBody; ts: string }

/** An appendBatch waiting for its events' batch: `count` events from `from` on. */
type Waiter = { from: number; count: number; resolve: (events: RunEvent[]) => void; reject: (error: unknown) => void }

/** A run's events not sent yet, in append order, and the callers waiting for them. */
type Batch = { events: Pending[]; waiters: Waiter[] }

type StreamEntry = [id: string, fields: string[]]

export type RedisEventStoreOptions = {
  redis: Redis
  /** A connection in subscriber mode, shared by every tail of this instance. */
  subscriber: Redis
  /** How long a finished run's stream is kept (TOOLEXEC_RUN_TTL_MS). */
  runTtlMs: number
  /** Bound on one stream's length: a safety net far above any run's event count. */
  maxEventsPerRun: number
  now?: () => Date
  /**
   * Runs this instance has just created (redis-run-store.ts adds them): their stream is empty, so
   * their first batch starts at seq 1 without reading the stream's end
   * (docs/adr/0371-new-runs-append-without-reading-the-stream-end.md).
   */
  newRuns?: Set<string>
}

type Tail = { cursors: Map<EventListener, number>; pumping?: Promise<void> | undefined; again: boolean }

/**
 * Event logs as one Redis Stream per run (docs/adr/0110-redis-key-layout.md). Live tails: one
 * pub/sub channel per run nudges this instance's readers, which read the stream from the lowest
 * cursor; each listener has its own cursor, so backlog and live part meet with no gap or duplicate.
 */
export function createRedisEventStore(options: RedisEventStoreOptions): EventStore {
  const { redis, subscriber } = options
  // One ISO string per millisecond, as the memory store does (docs/adr/0170-events-stamped-in-place.md).
  const timestamp = options.now === undefined ? createEventClock() : () => options.now!().toISOString()
  redis.defineCommand('toolexecAppend', { numberOfKeys: 1, lua: APPEND_SCRIPT })
  const nextSeq = new Map<string, number>()
  const tails = new Map<string, Tail>()
  /** Each run's events not sent yet, in append order: the next batch. */
  const waiting = new Map<string, Batch>()
  /** Runs with a batch on its way to Redis. */
  const sending = new Set<string>()

  subscriber.on('message', (channel: string) => {
    const runId = runIdOfChannel(channel)
    if (runId !== undefined) pump(runId)
  })
  // After a reconnect the nudges sent meanwhile are lost: each tail reads them once resubscribed (ADR 0581).
  const channels = () => [...tails.keys()].map((runId) => redisKeys.eventsChannel(runId))
  subscribeOnReady(subscriber, channels, () => Promise.all([...tails.keys()].map((runId) => pump(runId))))

  async function readAfter(runId: string, afterSeq: number): Promise<RunEvent[]> {
    const after = Math.max(0, afterSeq)
    // An entry's id is its last seq: from after + 1 on, every entry holds an event to return.
    const entries = (await redis.xrange(redisKeys.events(runId), `0-${after + 1}`, '+')) as StreamEntry[]
    const events: RunEvent[] = []
    for (const entry of entries) eventsOf(runId, entry, after, events)
    return events
  }

  async function lastSeq(runId: string): Promise<number> {
    const [last] = (await redis.xrevrange(redisKeys.events(runId), '+', '-', 'COUNT', 1)) as StreamEntry[]
    return last ? seqOf(last[0]) : 0
  }

  function send(runId: string, events: readonly Pending[], first: number): Promise<unknown> {
    const completes = events.some((event) => event.body.type === 'run.completed')
    // [seq, ts, body] per event in one serialisation: one flat string, no per-event pieces to join
    // (docs/adr/0535-a-batch-of-events-is-one-promise-and-one-string.md).
    const rows = new Array<[number, string, RunEventBody]>(events.length)
    for (let index = 0; index < events.length; index++)
      rows[index] = [first + index, events[index]!.ts, events[index]!.body]
    return (redis as unknown as AppendCommand).toolexecAppend(
      redisKeys.events(runId),
      redisKeys.eventsChannel(runId),
      String(options.maxEventsPerRun),
      completes ? String(options.runTtlMs) : '',
      String(first),
      String(first + events.length - 1),
      JSON.stringify(rows),
    )
  }

  /**
   * Sends a run's waiting events as one batch, at most one batch per run in flight: the events
   * appended meanwhile wait for its answer and then go out together, so a burst of events costs
   * one command (docs/adr/0114-batched-event-appends.md).
   */
  function flush(runId: string): void {
    const batch = waiting.get(runId)
    if (!batch || sending.has(runId)) return
    waiting.delete(runId)
    sending.add(runId)
    void storeBatch(runId, batch.events)
      .then(
        (events) => {
          for (const waiter of batch.waiters)
            waiter.resolve(
              waiter.count === events.length ? events : events.slice(waiter.from, waiter.from + waiter.count),
            )
        },
        (error: unknown) => {
          for (const waiter of batch.waiters) waiter.reject(error)
        },
      )
      .finally(() => {
        sending.delete(runId)
        flush(runId)
      })
  }

  async function storeBatch(runId: string, batch: readonly Pending[]): Promise<RunEvent[]> {
    for (let attempt = 0; ; attempt++) {
      // The first batch of a run on this instance reads the end; later ones continue from it.
      const first = nextSeq.get(runId) ?? (options.newRuns?.delete(runId) ? 1 : (await lastSeq(runId)) + 1)
      try {
        await send(runId, batch, first)
      } catch (error) {
        // Another writer (the instance that closes a lost run) took a seq: read the end again.
        nextSeq.delete(runId)
        if (attempt < 3 && String(error).includes('SEQ_TAKEN')) continue
        throw error
      }
      if (batch.some((pending) => pending.body.type === 'run.completed')) nextSeq.delete(runId)
      else nextSeq.set(runId, first + batch.length)
      const events = new Array<RunEvent>(batch.length)
      for (let index = 0; index < batch.length; index++) events[index] = eventOf(runId, batch[index]!, first + index)
      return events
    }
  }

  function appendBatch(runId: string, bodies: readonly RunEventBody[]): Promise<RunEvent[]> {
    // Seqs follow append order: the events join the run's next batch, which goes out at the end
    // of this event-loop turn or when the batch before it is answered; one promise for them all
    // (docs/adr/0535-a-batch-of-events-is-one-promise-and-one-string.md).
    if (bodies.length === 0) return Promise.resolve([])
    return new Promise<RunEvent[]>((resolve, reject) => {
      let batch = waiting.get(runId)
      if (!batch) {
        batch = { events: [], waiters: [] }
        waiting.set(runId, batch)
        if (!sending.has(runId)) setImmediate(() => flush(runId))
      }
      const from = batch.events.length
      for (const body of bodies) batch.events.push({ body, ts: timestamp() })
      batch.waiters.push({ from, count: bodies.length, resolve, reject })
    })
  }

  function pump(runId: string): Promise<void> {
    const tail = tails.get(runId)
    if (!tail) return Promise.resolve()
    if (tail.pumping) {
      tail.again = true
      return tail.pumping
    }
    tail.again = false
    tail.pumping = (async () => {
      do {
        tail.again = false
        if (tail.cursors.size === 0) break
        const from = Math.min(...tail.cursors.values())
        const events = await readAfter(runId, from)
        for (const event of events) {
          for (const [listener, cursor] of tail.cursors) {
            if (event.seq <= cursor) continue
            tail.cursors.set(listener, event.seq)
            deliver(listener, event)
          }
        }
      } while (tail.again)
    })()
      .catch(() => {
        // Redis is away: the next nudge or the reconnect reads again from the same cursors.
      })
      .finally(() => {
        tail.pumping = undefined
        // A nudge that came after the last read but before this point would otherwise be lost.
        if (tail.again) void pump(runId)
      })
    return tail.pumping
  }

  return {
    async append(runId, body) {
      const [event] = await appendBatch(runId, [body])
      return event!
    },
    appendBatch,
    read: readAfter,
    async subscribe(runId, afterSeq, listener) {
      let tail = tails.get(runId)
      if (!tail) {
        tail = { cursors: new Map(), again: false }
        tails.set(runId, tail)
        // Subscribed before the first read, so no nudge falls between the backlog and the tail.
        await subscriber.subscribe(redisKeys.eventsChannel(runId))
      }
      tail.cursors.set(listener, Math.max(0, afterSeq))
      // A read already under way may have started without this cursor: the backlog waits for the next.
      await tail.pumping
      await pump(runId)
      const owner = tail
      return () => {
        owner.cursors.delete(listener)
        if (owner.cursors.size === 0 && tails.get(runId) === owner) {
          tails.delete(runId)
          void subscriber.unsubscribe(redisKeys.eventsChannel(runId)).catch(() => undefined)
        }
      }
    },
    async delete(runId) {
      await redis.del(redisKeys.events(runId))
    },
  }
}

type AppendCommand = { toolexecAppend(...args: string[]): Promise<number> }

/**
 * The stored entry as the event, stamped in place once Redis has it: the body is serialised before
 * (without the stamp), and its owner never reuses it; the key order is a copy's
 * (docs/adr/0170-events-stamped-in-place.md, docs/adr/0512-redis-events-are-stamped-in-place.md).
 */
function eventOf(runId: string, { body, ts }: Pending, seq: number): RunEvent {
  const event = body as RunEvent
  event.seq = seq
  event.run_id = runId
  event.ts = ts
  return event
}

const seqOf = (id: string) => Number(id.slice(id.indexOf('-') + 1))

/** Pushes the events of one stream entry with a seq above `after` onto `into`. */
function eventsOf(runId: string, [id, fields]: StreamEntry, after: number, into: RunEvent[]): void {
  if (fields[0] === 'e') {
    for (const [seq, ts, body] of JSON.parse(fields[1]!) as [number, string, RunEventBody][])
      if (seq > after) into.push({ ...body, seq, run_id: runId, ts } as RunEvent)
    return
  }
  // An entry of one event (fields b and t), as written before batches were one entry.
  const body = JSON.parse(fields[1]!) as RunEventBody
  into.push({ ...body, seq: seqOf(id), run_id: runId, ts: fields[3]! } as RunEvent)
}

function runIdOfChannel(channel: string): string | undefined {
  const prefix = redisKeys.eventsChannel('')
  return channel.startsWith(prefix) ? channel.slice(prefix.length) : undefined
}

/** One faulty subscriber must not stop the others. */
function deliver(listener: EventListener, event: RunEvent): void {
  try {
    listener(event)
  } catch {
    // The subscriber's own problem: it is not told again.
  }
}
