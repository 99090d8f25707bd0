import type { RunEvent } from '../../../src/events/run-event.js'

/**
 * An event's SSE text (`id` its seq so `Last-Event-ID` resumes, `event` its type, `data` the JSON
 * event), formatted once however many subscribers a run has: every subscriber gets the same event
 * object from the store (docs/adr/0156-event-fan-out-formats-once.md).
 */
const texts = new WeakMap<RunEvent, string>()
export function sseText(event: RunEvent): string {
  let text = texts.get(event)
  if (text === undefined) {
    text = `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
    texts.set(event, text)
  }
  return text
}

const CRLF = Buffer.from('\r\n')

/** `parts` (UTF-8 SSE text) as one HTTP/1.1 chunk: size line, bytes, CRLF. */
function frame(parts: readonly Buffer[], size: number): Buffer {
  return Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), ...parts, CRLF])
}

/**
 * The same text as one HTTP/1.1 chunk (size line, bytes, CRLF) in one Buffer shared by every
 * subscriber: written to each socket as it is, with no per-subscriber encoding or framing
 * (docs/adr/0450-sse-fan-out-writes-shared-chunks-to-the-socket.md).
 */
const chunks = new WeakMap<RunEvent, Buffer>()
export function sseChunk(event: RunEvent): Buffer {
  let chunk = chunks.get(event)
  if (chunk === undefined) {
    const body = Buffer.from(sseText(event))
    chunk = frame([body], body.length)
    chunks.set(event, chunk)
  }
  return chunk
}

/** The SSE text inside an event's chunk: a view, no copy (the size line ends at the first CR). */
function bodyOf(event: RunEvent): Buffer {
  const chunk = sseChunk(event)
  return chunk.subarray(chunk.indexOf(13) + 2, chunk.length - 2)
}

/**
 * The last turn's chunk, for the next subscriber with the same events: a run's subscribers are
 * flushed one after another in the same `setImmediate` phase, so one entry serves all of them and
 * holds nothing past the next turn (docs/adr/0455-sse-fan-out-writes-one-chunk-per-turn.md).
 */
let lastTurn: { first: RunEvent; last: RunEvent; count: number; chunk: Buffer } | undefined

/**
 * A turn's events (a run's consecutive events, in order) as one HTTP/1.1 chunk, shared by every
 * subscriber that has the same turn: the client parses one chunk a turn instead of one an event
 * (docs/adr/0455-sse-fan-out-writes-one-chunk-per-turn.md). The bytes of the SSE text are the
 * same as the events' own chunks'.
 */
export function sseTurnChunk(events: readonly RunEvent[]): Buffer {
  const first = events[0] as RunEvent
  if (events.length === 1) return sseChunk(first)
  const last = events.at(-1) as RunEvent
  // A run's events after one seq are always the same events: same first, last and count, same turn.
  if (lastTurn?.first === first && lastTurn.last === last && lastTurn.count === events.length) return lastTurn.chunk
  const bodies = events.map(bodyOf)
  let size = 0
  for (const body of bodies) size += body.length
  const chunk = frame(bodies, size)
  lastTurn = { first, last, count: events.length, chunk }
  return chunk
}
