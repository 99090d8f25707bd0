import { connect } from 'node:net'
import { HttpResponseBody } from './http-response-body.js'
import { SseEvents } from './sse-events.js'

/** Per stream, each delivery's event seq and arrival time, and the time of each socket read. */
export type Stream = { seqs: number[]; arrivals: number[]; reads: number[] }

/**
 * Resolves when the stream's head arrived; `done` when its end did. The stream is read from its
 * own socket: a plain HTTP/1.1 GET, the response's bytes scanned as they come for each event's
 * `id` (docs/adr/0600-the-sse-bench-reads-its-streams-from-raw-sockets.md). Node's HTTP client
 * and an SSE parser per stream cost this process about 20 µs a stream and write, on the cores the
 * service writes on; what the figure measures is the bytes' arrival. Only numbers are kept: the
 * event's seq and the time its read came in. An event's JSON is parsed once per run, by the first
 * stream that gets it (`stamps`: seq → its `ts` in ms), so no stream's text is held while the
 * run goes on (docs/adr/0452-the-sse-bench-reader-keeps-only-numbers.md).
 */
// A turn's events are one HTTP chunk (docs/adr/0455), usually one read: the reads count the
// service's writes (one per turn of its loop while this reader keeps up), and an event's arrival
// is its read's. Every stream reads into this buffer; what a read leaves unfinished is copied.
const readBuffer = Buffer.allocUnsafe(64 * 1024)

export function subscribe(url: string, stamps: Map<number, number>) {
  const { hostname, port, pathname, search, host } = new URL(url)
  return new Promise<{ done: Promise<Stream> }>((resolve, reject) => {
    const stream: Stream = { seqs: [], arrivals: [], reads: [] }
    let arrived = 0
    let headSeen = false
    let finish: (stream: Stream) => void = () => {}
    let fail: (error: Error) => void = () => {}
    const done = new Promise<Stream>((resolveDone, rejectDone) => {
      finish = resolveDone
      fail = rejectDone
    })
    // Each read lands in the one buffer every stream shares and is scanned at once, outside
    // Node's stream machinery (no Buffer, push and 'data' event per read).
    const socket = connect({
      host: hostname,
      port: Number(port || 80),
      noDelay: true,
      onread: {
        buffer: readBuffer,
        callback: (length) => {
          arrived = Date.now()
          stream.reads.push(arrived)
          response.feed(readBuffer, length)
          events.keep()
          return true
        },
      },
    })
    const events = new SseEvents((id) => {
      const seq = Number(id)
      if (!stamps.has(seq)) stamps.set(seq, Date.parse((JSON.parse(events.data()) as { ts: string }).ts))
      stream.seqs.push(seq)
      stream.arrivals.push(arrived)
    })
    const response = new HttpResponseBody({
      head: (status) => {
        headSeen = true
        if (status === 200) resolve({ done })
        else {
          reject(new Error(`${url}: ${status}`))
          socket.destroy()
        }
      },
      body: (buffer, start, end) => events.feed(buffer, start, end),
      // The last chunk: the stream is over, whatever the server does with the connection.
      end: () => {
        socket.destroy()
        finish(stream)
      },
    })
    socket.on('close', () => {
      if (!headSeen) reject(new Error(`${url}: the connection closed before the response's head`))
      else if (response.close()) finish(stream)
      else fail(new Error(`${url}: the connection closed before the stream's end`))
    })
    socket.on('error', (error) => (headSeen ? fail(error) : reject(error)))
    socket.write(
      `GET ${pathname}${search} HTTP/1.1\r\nhost: ${host}\r\naccept: text/event-stream\r\nconnection: close\r\n\r\n`,
    )
  })
}
