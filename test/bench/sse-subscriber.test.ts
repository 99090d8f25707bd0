// Pins docs/adr/0600: the SSE bench's raw-socket reader finds exactly the events eventsource-parser
// finds in the same bytes (ids, and the data whose `ts` it keeps), whatever the reads' cuts: a
// chunk-size line, a chunk's closing CRLF, an `id` line or a multi-line `data` cut anywhere, a
// chunk extension, comments, CRLF lines, several events in one write; over a real listening
// socket, and on the real service's `/v1/runs/{id}/events` stream (seqs in order, none lost).
import { createServer, type Socket } from 'node:net'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { afterEach, describe, expect, it } from 'vitest'
import { HttpResponseBody } from '../../bench/lib/http-response-body.js'
import { SseEvents } from '../../bench/lib/sse-events.js'
import { subscribe } from '../../bench/lib/sse-subscriber.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'

const ts = (n: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString()

/** The SSE text: events with and without a space after the colon, CRLF lines, comments, a retry. */
const body = [
  'retry: 2000\n\n',
  `id: 1\nevent: run.started\ndata: {"seq":1,"ts":"${ts(1)}"}\n\n`,
  ': keep-alive\n\n',
  `id: 2\nevent: tool_use.started\ndata: {"seq":2,\ndata: "ts":"${ts(2)}"}\n\n`,
  `id: 3\r\ndata: {"seq":3,"ts":"${ts(3)}"}\r\n\r\n`,
  `data:{"seq":4,"ts":"${ts(4)}"}\nid:4\n\n`,
  `idx: 9\nid: 5\nevent: tool_result\ndata: {"seq":5,"text":"id: 7\\ndata: x","ts":"${ts(5)}"}\n\n`,
  `event: note\nid: 6\n\n`,
  `id: 7\ndata: {"seq":7,"ts":"${ts(7)}"}\n\nid: 8\ndata: {"seq":8,"ts":"${ts(8)}"}\n\n`,
].join('')

/** `text` as HTTP/1.1 chunks cut at `cuts` (byte offsets), one size line in capitals with an extension. */
function chunked(text: string, cuts: readonly number[]): Buffer {
  const bytes = Buffer.from(text)
  const parts: Buffer[] = []
  let from = 0
  for (const [index, to] of [...cuts, bytes.length].entries()) {
    const size = (to - from).toString(16)
    parts.push(Buffer.from(`${index === 1 ? `${size.toUpperCase()};name=value` : size}\r\n`))
    parts.push(bytes.subarray(from, to), Buffer.from('\r\n'))
    from = to
  }
  return Buffer.concat([...parts, Buffer.from('0\r\n\r\n')])
}

const head = 'HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n'
// Chunk boundaries inside the `id: 1` line, inside a data line and between the two data lines of
// event 2, and between two events.
const cutsInBody = [
  body.indexOf('id: 1') + 1,
  body.indexOf('data: "ts"'),
  body.indexOf('"seq":3') + 2,
  body.indexOf('id: 7'),
]
const wire = Buffer.concat([Buffer.from(head), chunked(body, cutsInBody)])

function reference(): EventSourceMessage[] {
  const found: EventSourceMessage[] = []
  createParser({ onEvent: (event) => found.push(event) }).feed(body)
  return found
}

/** The events the bench's reader finds when the bytes come in `reads`. */
function scan(reads: readonly Buffer[]) {
  const found: { id: string | undefined; data: string }[] = []
  let status = 0
  let ended = false
  const events = new SseEvents((id) => found.push({ id, data: events.data() }))
  const response = new HttpResponseBody({
    head: (code) => {
      status = code
    },
    body: (buffer, start, end) => events.feed(buffer, start, end),
    end: () => {
      ended = true
    },
  })
  // As on the sockets: every read lands in one buffer, overwritten by the next (here zeroed).
  const shared = Buffer.alloc(Math.max(...reads.map(({ length }) => length)))
  for (const read of reads) {
    read.copy(shared)
    response.feed(shared, read.length)
    events.keep()
    shared.fill(0)
  }
  return { found, status, ended }
}

const cutAt = (bytes: Buffer, offsets: readonly number[]) =>
  [0, ...offsets, bytes.length].slice(1).map((to, index, ends) => bytes.subarray(index === 0 ? 0 : ends[index - 1], to))

const expected = reference().map(({ id, data }) => ({ id, data }))

describe('the SSE bench reader', () => {
  it('finds what eventsource-parser finds, in one read', () => {
    expect(expected.map(({ id }) => id)).toEqual(['1', '2', '3', '4', '5', '7', '8'])
    expect(scan([wire])).toEqual({ found: expected, status: 200, ended: true })
  })

  it('finds the same with the reads cut at every byte, and at every pair of places', () => {
    for (let at = 1; at < wire.length; at++) expect(scan(cutAt(wire, [at])).found).toEqual(expected)
    for (let first = 1; first < wire.length; first += 7)
      for (let second = first + 1; second < wire.length; second += 3)
        expect(scan(cutAt(wire, [first, second])).found).toEqual(expected)
    const byByte = Array.from({ length: wire.length }, (_unused, index) => wire.subarray(index, index + 1))
    expect(scan(byByte)).toEqual({ found: expected, status: 200, ended: true })
  })

  it('reports the status of a refusal', () => {
    expect(scan([Buffer.from('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n')]).status).toBe(404)
  })
})

describe('the SSE bench reader on a socket', () => {
  const servers: { close: () => void }[] = []
  afterEach(() => {
    for (const server of servers.splice(0)) server.close()
  })

  it('reads a stream written in awkward pieces, with the seqs and stamps eventsource-parser reads', async () => {
    // Writes cut inside the head, a size line, a chunk's CRLF, the `id: 2` line and a `data` line.
    const cuts = [
      head.length - 3,
      wire.indexOf('\r\n', head.length) - 1,
      wire.indexOf('id: 2') + 2,
      wire.indexOf('"seq":5') + 3,
      wire.indexOf('0\r\n\r\n', wire.length - 6) + 2,
    ]
    const server = createServer((socket: Socket) => {
      socket.once('data', async () => {
        for (const piece of cutAt(wire, cuts)) {
          socket.write(piece)
          // Each piece in a read of its own, as far as the host allows (not needed for the result).
          await new Promise((resolve) => setTimeout(resolve, 2))
        }
      })
    })
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as { port: number }
    const stamps = new Map<number, number>()
    const { done } = await subscribe(`http://127.0.0.1:${port}/v1/runs/run_1/events`, stamps)
    const stream = await done
    expect(stream.seqs).toEqual(expected.map(({ id }) => Number(id)))
    expect(stream.arrivals).toHaveLength(expected.length)
    expect(stream.reads.length).toBeGreaterThan(0)
    expect([...stamps]).toEqual(
      expected.map(({ id, data }) => [Number(id), Date.parse((JSON.parse(data) as { ts: string }).ts)]),
    )
  })

  it('reads the service’s own stream of a run: every seq, in order, as eventsource-parser over fetch', async () => {
    const tools = createTestTools()
    const { baseUrl } = await startTestServer({ extraTools: tools.tools })
    const uses = ['a', 'b', 'c'].map((key) => ({ type: 'tool_use', id: key, name: 'Gate', input: { key } }))
    const created = await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wait: false, tool_uses: uses }),
    })
    const { events_url } = (await created.json()) as { events_url: string }
    const stamps = new Map<number, number>()
    const { done } = await subscribe(`${baseUrl}${events_url}`, stamps)
    const fetched = await fetch(`${baseUrl}${events_url}`, { headers: { accept: 'text/event-stream' } })
    for (const key of ['a', 'b', 'c']) tools.open(key)
    const seen: EventSourceMessage[] = []
    const parser = createParser({ onEvent: (event) => seen.push(event) })
    const decoder = new TextDecoder()
    for await (const chunk of fetched.body!) parser.feed(decoder.decode(chunk, { stream: true }))
    const stream = await done
    const seqs = seen.map(({ id }) => Number(id))
    expect(seqs.length).toBeGreaterThan(6)
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_unused, index) => (seqs[0] as number) + index))
    expect(stream.seqs).toEqual(seqs)
    expect(seen.at(-1)?.event).toBe('run.completed')
    for (const { id, data } of seen)
      expect(stamps.get(Number(id))).toBe(Date.parse((JSON.parse(data) as { ts: string }).ts))
  })
})
