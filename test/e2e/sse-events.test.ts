// Pins run events over Server-Sent Events read with eventsource-parser over fetch: live delivery,
// resuming with Last-Event-ID, and the stream ending after run.completed.
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

describe('events over SSE', () => {
  it('streams live events and resumes from Last-Event-ID without gaps', async () => {
    const tools = createTestTools()
    const { baseUrl } = await startTestServer({ extraTools: tools.tools })
    const created = await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        wait: false,
        tool_uses: [{ type: 'tool_use', id: 'a', name: 'Gate', input: { key: 'a', progress: 'half' } }],
      }),
    })
    const { events_url } = (await created.json()) as { events_url: string }
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
})
