// Pins replay at the end of a run's events: a subscriber that already has run.completed (or asks
// for more than there is) is told the stream is over instead of waiting forever, over WebSocket and SSE.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { runCompleted } from '../helpers/run-completion.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'
import { connect, injectSocket } from '../helpers/ws-client.js'

const gate = (id: string, key: string) => ({ type: 'tool_use', id, name: 'Gate', input: { key } })

async function finishedRun() {
  const tools = createTestTools()
  const server = await startTestServer({ extraTools: tools.tools })
  const created = await fetch(`${server.baseUrl}/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ wait: false, tool_uses: [gate('a', 'a')] }),
  })
  const { run_id: runId } = (await created.json()) as { run_id: string }
  tools.open('a')
  const events = await runCompleted(server.app, runId)
  return { ...server, runId, lastSeq: events.at(-1)!.seq }
}

describe('replay at the end of a run', () => {
  it('closes a WebSocket with 1000 at once when ?after= is the seq of run.completed', async () => {
    const { wsUrl, runId, lastSeq } = await finishedRun()
    const client = connect(`${wsUrl}/v1/runs/${runId}/events?after=${lastSeq}`)
    expect((await client.closed).code).toBe(1000)
    expect(client.received).toEqual([])
  })

  it('closes a WebSocket with 1000 when ?after= is past the end of a finished run', async () => {
    const { wsUrl, runId, lastSeq } = await finishedRun()
    const client = connect(`${wsUrl}/v1/runs/${runId}/events?after=${lastSeq + 5}`)
    expect((await client.closed).code).toBe(1000)
    expect(client.received).toEqual([])
  })

  it('answers an SSE reconnect after run.completed with 204, which stops EventSource reconnecting', async () => {
    const { baseUrl, runId, lastSeq } = await finishedRun()
    const response = await fetch(`${baseUrl}/v1/runs/${runId}/events`, {
      headers: { accept: 'text/event-stream', 'last-event-id': String(lastSeq) },
    })
    expect(response.status).toBe(204)
    expect(await response.text()).toBe('')
  })

  it('still replays the last event when ?after= is one before it', async () => {
    const { baseUrl, runId, lastSeq } = await finishedRun()
    const response = await fetch(`${baseUrl}/v1/runs/${runId}/events?after=${lastSeq - 1}`, {
      headers: { accept: 'text/event-stream' },
    })
    expect(response.status).toBe(200)
    const body = await response.text()
    expect(body).toContain(`id: ${lastSeq}\nevent: run.completed\n`)
    expect(body.match(/^id: /gm)).toHaveLength(1)
  })

  it('delivers no event at or before ?after= to a subscriber of a running run, and closes at its end', async () => {
    const tools = createTestTools()
    const { app } = await buildTestApp({ extraTools: tools.tools })
    const created = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: { wait: false, tool_uses: [gate('a', 'a')] },
    })
    const runId = created.json().run_id as string
    await tools.started('a')
    const stream = await injectSocket(app, `/v1/runs/${runId}/events?after=100`)
    tools.open('a')
    expect((await stream.closed).code).toBe(1000)
    expect(stream.received).toEqual([])
  })
})
