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
    chunk = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, CRLF])
    chunks.set(event, chunk)
  }
  return chunk
}
