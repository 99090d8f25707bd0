import { request } from 'node:http'
import { createParser } from 'eventsource-parser'

/** Per stream, each delivery's event seq and arrival time, and the time of each socket read. */
export type Stream = { seqs: number[]; arrivals: number[]; reads: number[] }

/**
 * Resolves when the stream's head arrived; `done` when its end did. Each chunk is parsed as it
 * comes (eventsource-parser, well under a microsecond an event) and only numbers are kept: the
 * event's seq (its SSE `id`) and the time it came in. An event's JSON is parsed once per run, by
 * the first stream that gets it (`stamps`: seq → its `ts` in ms). Keeping every chunk's text and
 * parsing at the end made this process's young-generation collections copy all of it while the
 * run went on, and each pause delayed every stream's reading; parsing a stream at its own end
 * delayed the run's last events on the streams still open
 * (docs/adr/0452-the-sse-bench-reader-keeps-only-numbers.md).
 */
export function subscribe(url: string, stamps: Map<number, number>) {
  return new Promise<{ done: Promise<Stream> }>((resolve, reject) => {
    const call = request(url, { headers: { accept: 'text/event-stream' } }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`${url}: ${response.statusCode}`))
      const stream: Stream = { seqs: [], arrivals: [], reads: [] }
      let arrived = 0
      const parser = createParser({
        onEvent: (event) => {
          const seq = Number(event.id)
          if (!stamps.has(seq)) stamps.set(seq, Date.parse((JSON.parse(event.data) as { ts: string }).ts))
          stream.seqs.push(seq)
          stream.arrivals.push(arrived)
        },
      })
      // A turn's events are one HTTP chunk (docs/adr/0455), so 'data' comes per turn; the socket's
      // reads count the service's writes (one per turn of its loop while this reader keeps up).
      const socket = response.socket
      const countRead = () => stream.reads.push(Date.now())
      socket.on('data', countRead)
      response.setEncoding('utf8')
      response.on('data', (chunk: string) => {
        arrived = Date.now()
        parser.feed(chunk)
      })
      const done = new Promise<Stream>((finish) =>
        response.on('end', () => {
          // The agent may keep the connection for the next run's subscribers.
          socket.off('data', countRead)
          finish(stream)
        }),
      )
      resolve({ done })
    })
    call.on('error', reject)
    call.end()
  })
}
