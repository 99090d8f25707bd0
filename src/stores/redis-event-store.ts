import type { Redis } from 'ioredis'
import type { RunEvent, RunEventBody } from '../events/run-event.js'
import type { EventListener, EventStore } from './event-store.js'
import { redisKeys } from './redis-keys.js'

/**
 * Appends one event at an id the caller chose (`0-<seq>`), publishes its seq, and on
 * run.completed sets the stream's expiry. Idempotent: a resend of an append that already landed
 * (ioredis resends unanswered commands after a reconnect) finds the same body and does nothing.
 */
const APPEND_SCRIPT = `
local id = '0-' .. ARGV[1]
local existing = redis.call('XRANGE', KEYS[1], id, id)
if #existing > 0 then
  if existing[1][2][2] == ARGV[2] then return 0 end
  return redis.error_reply('SEQ_TAKEN')
end
local added = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[5], id, 'b', ARGV[2], 't', ARGV[3])
if type(added) == 'table' and added.err then return redis.error_reply('SEQ_TAKEN') end
redis.call('PUBLISH', ARGV[4], ARGV[1])
if ARGV[6] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[6]) end
return 1
`

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
}

type Tail = { cursors: Map<EventListener, number>; pumping?: Promise<void>; again: boolean }

/**
 * Event logs as one Redis Stream per run (docs/adr/0110-redis-key-layout.md). Live tails: one
 * pub/sub channel per run nudges this instance's readers, which read the stream from the lowest
 * cursor; each listener has its own cursor, so backlog and live part meet with no gap or duplicate.
 */
export function createRedisEventStore(options: RedisEventStoreOptions): EventStore {
  const { redis, subscriber } = options
  const now = options.now ?? (() => new Date())
  redis.defineCommand('toolexecAppend', { numberOfKeys: 1, lua: APPEND_SCRIPT })
  const nextSeq = new Map<string, number>()
  const appending = new Map<string, Promise<unknown>>()
  const tails = new Map<string, Tail>()

  subscriber.on('message', (channel: string) => {
    const runId = runIdOfChannel(channel)
    if (runId !== undefined) pump(runId)
  })
  // After a reconnect the nudges sent meanwhile are lost: every tail reads what it missed.
  subscriber.on('ready', () => {
    for (const runId of tails.keys()) pump(runId)
  })

  async function readAfter(runId: string, afterSeq: number): Promise<RunEvent[]> {
    const entries = (await redis.xrange(
      redisKeys.events(runId),
      `0-${Math.max(0, afterSeq) + 1}`,
      '+',
    )) as StreamEntry[]
    return entries.map((entry) => toEvent(runId, entry))
  }

  async function lastSeq(runId: string): Promise<number> {
    const [last] = (await redis.xrevrange(redisKeys.events(runId), '+', '-', 'COUNT', 1)) as StreamEntry[]
    return last ? seqOf(last[0]) : 0
  }

  function send(runId: string, body: RunEventBody, seq: number, ts: string): Promise<unknown> {
    return (redis as unknown as AppendCommand).toolexecAppend(
      redisKeys.events(runId),
      String(seq),
      JSON.stringify(body),
      ts,
      redisKeys.eventsChannel(runId),
      String(options.maxEventsPerRun),
      body.type === 'run.completed' ? String(options.runTtlMs) : '',
    )
  }

  async function appendOnce(runId: string, body: RunEventBody): Promise<RunEvent> {
    for (let attempt = 0; ; attempt++) {
      const seq = nextSeq.get(runId) ?? (await lastSeq(runId)) + 1
      const ts = now().toISOString()
      try {
        await send(runId, body, seq, ts)
      } catch (error) {
        // Another writer (the instance that closes a lost run) took this seq: read the end again.
        nextSeq.delete(runId)
        if (attempt < 3 && String(error).includes('SEQ_TAKEN')) continue
        throw error
      }
      advance(runId, body, seq)
      return { ...body, seq, run_id: runId, ts } as RunEvent
    }
  }

  function advance(runId: string, body: RunEventBody, seq: number): void {
    if (body.type === 'run.completed') nextSeq.delete(runId)
    else nextSeq.set(runId, seq + 1)
  }

  /**
   * Once this process knows a run's next seq, an append goes out at once without waiting for the
   * reply to the one before: one connection keeps the order, so appends are pipelined (one round
   * trip per burst of events, not per event) and seqs stay 1, 2, … with no gap. A refused seq
   * falls back to the careful path, which reads the end again (docs/adr/0110-redis-key-layout.md).
   */
  function appendPipelined(runId: string, body: RunEventBody, seq: number): Promise<RunEvent> {
    const ts = now().toISOString()
    advance(runId, body, seq)
    return send(runId, body, seq, ts).then(
      () => ({ ...body, seq, run_id: runId, ts }) as RunEvent,
      (error: unknown) => {
        nextSeq.delete(runId)
        if (!String(error).includes('SEQ_TAKEN')) throw error
        return appendOnce(runId, body)
      },
    )
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
      })
    return tail.pumping
  }

  return {
    append(runId, body) {
      // Seqs are handed out in call order: pipelined once the next seq is known, otherwise one
      // append at a time behind the ones before (the first append of a run reads the end).
      const previous = appending.get(runId)
      const known = nextSeq.get(runId)
      if (known !== undefined && previous === undefined) return appendPipelined(runId, body, known)
      const result = (previous ?? Promise.resolve()).catch(() => undefined).then(() => appendOnce(runId, body))
      appending.set(runId, result)
      void result
        .catch(() => undefined)
        .finally(() => {
          if (appending.get(runId) === result) appending.delete(runId)
        })
      return result
    },
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

const seqOf = (id: string) => Number(id.slice(id.indexOf('-') + 1))

function toEvent(runId: string, [id, fields]: StreamEntry): RunEvent {
  const body = JSON.parse(fields[1]!) as RunEventBody
  return { ...body, seq: seqOf(id), run_id: runId, ts: fields[3]! } as RunEvent
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
