import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RunEvent } from '../../../src/events/run-event.js'

const HEARTBEAT_MS = 15_000

/**
 * Formatted once per event, not once per subscriber: every subscriber of a run gets the same
 * event object from the store (docs/adr/0156-event-fan-out-formats-once.md).
 */
const formatted = new WeakMap<RunEvent, string>()
function formatEvent(event: RunEvent): string {
  let text = formatted.get(event)
  if (text === undefined) {
    text = `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`
    formatted.set(event, text)
  }
  return text
}

/**
 * Server-Sent Events: `id` is the event's seq (so `Last-Event-ID` resumes), `event` its type,
 * `data` the JSON event. The stream ends after `run.completed`; a comment line keeps proxies awake.
 * A reconnect after the end (EventSource does that on its own) gets `204`, which stops EventSource.
 */
export async function serveEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  subscribe: (listener: (event: RunEvent) => void, onEnd: () => void) => Promise<() => void>,
  onClose: (() => void) | undefined,
  maxBufferedBytes: number,
): Promise<void> {
  const response = reply.raw
  let heartbeat: NodeJS.Timeout | undefined
  let stop: (() => void) | undefined
  let ended = false
  let over = false
  /** Events that arrive before the head is written (the backlog). */
  let backlog: RunEvent[] | undefined = []
  let lastSeq = 0
  const end = () => {
    if (ended) return
    flush()
    ended = true
    clearInterval(heartbeat)
    stop?.()
    onClose?.()
    response.end()
  }
  /** Events of this turn not yet handed to the response, as one string. */
  let unsent = ''
  const flush = () => {
    if (ended || unsent === '') return
    const text = unsent
    unsent = ''
    response.write(text)
  }
  const write = (event: RunEvent) => {
    if (ended) return
    if (backlog) {
      backlog.push(event)
      return
    }
    // A reader this far behind is cut off with a last comment; EventSource resumes on its own
    // with Last-Event-ID (docs/adr/0126-slow-subscribers-are-cut-off-by-bytes.md).
    if (response.writableLength + unsent.length > maxBufferedBytes) {
      unsent = `: subscriber too slow: resume with after=${lastSeq} or Last-Event-ID\n\n`
      end()
      // A reader that reads nothing would keep the buffer: it is dropped after a grace.
      setTimeout(() => response.destroy(), 10_000).unref()
      return
    }
    // Events of one turn of the event loop leave in one write of one string, with no cork: a
    // write per event per subscriber delayed delivery (docs/adr/0156-event-fan-out-formats-once.md),
    // and on Node 22 ending a response corked for a later uncork broke its chunked framing
    // (docs/adr/0178-sse-writes-one-string-per-turn.md).
    if (unsent === '') setImmediate(flush)
    unsent += formatEvent(event)
    lastSeq = event.seq
    if (event.type === 'run.completed') setImmediate(end)
  }
  request.raw.on('close', end)
  // Subscribed before the head is written: a run that expired in between is still a plain 404.
  stop = await subscribe(write, () => {
    over = true
    if (!backlog) setImmediate(end)
  })
  reply.hijack()
  if (ended) {
    // The client left while we subscribed.
    stop()
    return
  }
  if (over && backlog.length === 0) {
    ended = true
    stop()
    onClose?.()
    response.writeHead(204).end()
    return
  }
  response.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  response.write('retry: 2000\n\n')
  heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS)
  heartbeat.unref()
  const pending = backlog
  backlog = undefined
  for (const event of pending) write(event)
  if (over) setImmediate(end)
}
