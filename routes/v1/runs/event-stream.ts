import { Socket } from 'node:net'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { RunEvent } from '../../../src/events/run-event.js'
import { sseChunk, sseText, sseTurnChunk } from './sse-chunk.js'

const HEARTBEAT_MS = 15_000

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
  /** Events of this turn not yet handed to the socket, and their bytes. */
  let unsent: RunEvent[] = []
  let unsentBytes = 0
  const flush = () => {
    if (ended || unsent.length === 0) return
    const events = unsent
    unsent = []
    unsentBytes = 0
    const socket = response.socket
    // A chunked response that owns a real connection (not HEAD, not HTTP/1.0, not inject) gets
    // the turn's events as one chunk, shared by every subscriber with the same turn, in one plain
    // write straight to its socket (docs/adr/0455-sse-fan-out-writes-one-chunk-per-turn.md,
    // docs/adr/0450). Otherwise the response frames the text.
    if (socket instanceof Socket && response.chunkedEncoding && response.headersSent) {
      if (!socket.destroyed) socket.write(sseTurnChunk(events))
    } else response.write(events.map(sseText).join(''))
  }
  const write = (event: RunEvent) => {
    if (ended) return
    if (backlog) {
      backlog.push(event)
      return
    }
    // A reader this far behind is cut off with a last comment; EventSource resumes on its own
    // with Last-Event-ID (docs/adr/0126-slow-subscribers-are-cut-off-by-bytes.md).
    if (response.writableLength + unsentBytes > maxBufferedBytes) {
      unsent = []
      unsentBytes = 0
      response.write(`: subscriber too slow: resume with after=${lastSeq} or Last-Event-ID\n\n`)
      end()
      // A reader that reads nothing would keep the buffer: it is dropped after a grace.
      setTimeout(() => response.destroy(), 10_000).unref()
      return
    }
    // Events of one turn of the event loop leave together at setImmediate: a write per event per
    // subscriber delayed delivery (docs/adr/0156-event-fan-out-formats-once.md).
    if (unsent.length === 0) setImmediate(flush)
    unsent.push(event)
    unsentBytes += sseChunk(event).length
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
