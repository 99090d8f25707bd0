// Pins run events over Server-Sent Events read with eventsource-parser over fetch: live delivery,
// resuming with Last-Event-ID, and the stream ending after run.completed; over a raw socket, the
// shared chunks written straight to the socket (ADR 0450) leave HEAD and HTTP/1.0 answers intact.
import { connect } from 'node:net'
import { createParser, type EventSourceMessage } from 'eventsource-parser'
import { describe, expect, it } from 'vitest'
import { RUN_EVENT_TYPES_WITHOUT_PERMISSIONS } from '../helpers/run-event-types.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'

/** Reads an SSE response to its end, calling `onMessage` for each event as it arrives. */
async function readEvents(response: Response, onMessage: (message: EventSourceMessage) => void) {
  const parser = createParser({ onEvent: onMessage })
  const decoder = new TextDecoder()
  for await (const chunk of response.body!) parser.feed(decoder.decode(chunk, { stream: true }))
}

/** Sends `head` over a fresh TCP connection and returns every byte until the server closes it. */
function rawExchange(baseUrl: string, head: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(head))
    let text = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      text += chunk
    })
    socket.on('end', () => resolve(text))
    socket.on('error', reject)
  })
}

/** A `wait: false` run of one held Gate call `a`, on a server with the test tools. */
async function startGateRun(input: Record<string, string>) {
  const tools = createTestTools()
  const { baseUrl } = await startTestServer({ extraTools: tools.tools })
  const created = await fetch(`${baseUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wait: false, tool_uses: [{ type: 'tool_use', id: 'a', name: 'Gate', input }] }),
  })
  return { tools, baseUrl, run: (await created.json()) as { run_id: string; events_url: string } }
}

describe('events over SSE', () => {
  it('streams live events and resumes from Last-Event-ID without gaps', async () => {
    const {
      tools,
      baseUrl,
      run: { events_url },
    } = await startGateRun({ key: 'a', progress: 'half' })
    const live = await fetch(`${baseUrl}${events_url}`, { headers: { accept: 'text/event-stream' } })
    expect(live.headers.get('content-type')).toContain('text/event-stream')
    const messages: EventSourceMessage[] = []
    await readEvents(live, (message) => {
      messages.push(message)
      // The call is held open until the client has seen its progress: delivery is live.
      if (message.event === 'tool.progress') tools.open('a', 'finished')
    })
    expect(messages.map((message) => message.event)).toEqual(RUN_EVENT_TYPES_WITHOUT_PERMISSIONS)
    expect(messages.map((message) => Number(message.id))).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(JSON.parse(messages[5]!.data)).toMatchObject({ result: { tool_use_id: 'a', content: 'finished' } })

    const resumed: EventSourceMessage[] = []
    const again = await fetch(`${baseUrl}${events_url}`, {
      headers: { accept: 'text/event-stream', 'last-event-id': '4' },
    })
    await readEvents(again, (message) => resumed.push(message))
    expect(resumed).toEqual(messages.slice(4))
  })

  it('answers HEAD without a body and an HTTP/1.0 client with the same records unchunked', async () => {
    const {
      tools,
      baseUrl,
      run: { run_id: runId },
    } = await startGateRun({ key: 'a' })
    tools.open('a')
    const eventsUrl = `/v1/runs/${runId}/events`
    const chunked = await fetch(`${baseUrl}${eventsUrl}`, { headers: { accept: 'text/event-stream' } })
    const expected = await chunked.text()
    const host = new URL(baseUrl).host

    const head = await rawExchange(
      baseUrl,
      `HEAD ${eventsUrl} HTTP/1.1\r\nhost: ${host}\r\naccept: text/event-stream\r\nconnection: close\r\n\r\n`,
    )
    expect(head).toMatch(/^HTTP\/1\.1 200/)
    expect(head.endsWith('\r\n\r\n')).toBe(true)

    const old = await rawExchange(
      baseUrl,
      `GET ${eventsUrl} HTTP/1.0\r\nhost: ${host}\r\naccept: text/event-stream\r\n\r\n`,
    )
    expect(old).not.toMatch(/transfer-encoding/i)
    expect(old.slice(old.indexOf('\r\n\r\n') + 4)).toBe(expected)
  })
})
