// Pins GET /v1/runs/{id}/events: WebSocket and SSE delivery in seq order, ?after= / Last-Event-ID
// replay, client frames (run.cancel, permission.response) and error frames that keep the socket up.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { runCompleted } from '../helpers/run-completion.js'
import { RUN_EVENT_TYPES_WITHOUT_PERMISSIONS } from '../helpers/run-event-types.js'
import { createTestTools } from '../helpers/test-tools.js'
import { injectSocket } from '../helpers/ws-client.js'

const gate = (id: string, key: string, progress?: string) => ({
  type: 'tool_use',
  id,
  name: 'Gate',
  input: progress === undefined ? { key } : { key, progress },
})

async function setup() {
  const tools = createTestTools()
  const { app } = await buildTestApp({ extraTools: tools.tools })
  const start = async (payload: object) => {
    const response = await app.inject({ method: 'POST', url: '/v1/runs', payload: { wait: false, ...payload } })
    return response.json().run_id as string
  }
  return { app, tools, start }
}

describe('GET /v1/runs/{id}/events over WebSocket', () => {
  it('delivers every event in seq order, progress as it happens, and closes after run.completed', async () => {
    const { app, tools, start } = await setup()
    const runId = await start({ tool_uses: [gate('a', 'a', 'halfway'), gate('b', 'b')] })
    const stream = await injectSocket(app, `/v1/runs/${runId}/events`)
    await stream.until((frame) => frame.type === 'tool.progress')
    tools.open('b')
    tools.open('a')
    expect((await stream.closed).code).toBe(1000)
    const types = stream.received.map((frame) => frame.type)
    expect(types[0]).toBe('run.started')
    expect(types.at(-1)).toBe('run.completed')
    expect(stream.received.map((frame) => frame.seq)).toEqual(types.map((_type, index) => index + 1))
    expect(new Set(types)).toEqual(new Set(RUN_EVENT_TYPES_WITHOUT_PERMISSIONS))
    // Results in block order even though b completed first.
    const results = stream.received.filter((frame) => frame.type === 'tool.result').map((frame) => frame.tool_use_id)
    expect(results).toEqual(['a', 'b'])
    expect(stream.received.every((frame) => frame.run_id === runId && typeof frame.ts === 'string')).toBe(true)
  })

  it('replays only what comes after ?after=', async () => {
    const { app, tools, start } = await setup()
    const runId = await start({ tool_uses: [gate('a', 'a')] })
    tools.open('a')
    const all = await runCompleted(app, runId)
    const stream = await injectSocket(app, `/v1/runs/${runId}/events?after=2`)
    await stream.closed
    expect(stream.received).toEqual(all.slice(2))
  })

  it('answers bad frames with error frames and keeps the socket; run.cancel cancels the run', async () => {
    const { app, tools, start } = await setup()
    const runId = await start({ tool_uses: [gate('a', 'a')] })
    await tools.started('a')
    const stream = await injectSocket(app, `/v1/runs/${runId}/events`)
    stream.send('not json')
    await stream.until((frame) => frame.type === 'error')
    stream.send({ type: 'permission.response', request_id: 'perm_x', decision: 'allow' })
    stream.send({ type: 'bogus' })
    await stream.until((frame) => frame.code === 'permission_request_not_found')
    stream.send({ type: 'run.cancel' })
    await stream.closed
    const errors = stream.received.filter((frame) => frame.type === 'error').map((frame) => frame.code)
    expect(errors).toEqual(['invalid_frame', 'permission_request_not_found', 'invalid_frame'])
    const result = stream.received.find((frame) => frame.type === 'tool.result') as unknown as {
      result: { content: string }
    }
    expect(result.result.content).toContain("The user doesn't want to proceed with this tool use")
    expect(stream.received.at(-1)).toMatchObject({ type: 'run.completed', status: 'cancelled' })
  })

  it('asks for permission over the socket and runs the call once allowed', async () => {
    const { app, tools, start } = await setup()
    const runId = await start({ tool_uses: [{ type: 'tool_use', id: 't', name: 'Touch', input: { name: 'x' } }] })
    const stream = await injectSocket(app, `/v1/runs/${runId}/events`)
    await stream.until((frame) => frame.type === 'permission.requested')
    const request = stream.received.find((frame) => frame.type === 'permission.requested')!
    expect(request).toMatchObject({ tool_use_id: 't', tool: 'Touch', input: { name: 'x' } })
    stream.send({
      type: 'permission.response',
      request_id: request.request_id,
      decision: 'allow',
      updated_input: { name: 'y' },
    })
    await stream.closed
    expect(stream.received.find((frame) => frame.type === 'permission.resolved')).toMatchObject({ decision: 'allow' })
    const result = stream.received.find((frame) => frame.type === 'tool.result') as unknown as {
      result: { content: string }
    }
    expect(result.result.content).toBe('touched y')
    expect(tools.touched).toEqual([{ name: 'y' }])
  })

  // The WebSocket side (a 404 before the upgrade) is pinned in test/e2e with a real client.
  it('404s an unknown run', async () => {
    const { app } = await setup()
    const response = await app.inject({ url: '/v1/runs/run_nope/events' })
    expect(response.statusCode).toBe(404)
  })
})

describe('GET /v1/runs/{id}/events over SSE', () => {
  it('streams id/event/data records and resumes after Last-Event-ID', async () => {
    const { app, tools, start } = await setup()
    const runId = await start({ tool_uses: [gate('a', 'a')] })
    tools.open('a')
    const all = await runCompleted(app, runId)
    const response = await app.inject({ url: `/v1/runs/${runId}/events`, headers: { accept: 'text/event-stream' } })
    expect(response.statusCode).toBe(200)
    expect(response.headers['content-type']).toContain('text/event-stream')
    const records = parseSse(response.body)
    expect(records.map((record) => Number(record.id))).toEqual(all.map((event) => event.seq))
    expect(records.map((record) => JSON.parse(record.data!))).toEqual(all)
    expect(records.map((record) => record.event)).toEqual(all.map((event) => event.type))
    const resumed = await app.inject({
      url: `/v1/runs/${runId}/events`,
      headers: { accept: 'text/event-stream', 'last-event-id': '3' },
    })
    expect(parseSse(resumed.body).map((record) => Number(record.id))).toEqual(all.slice(3).map((event) => event.seq))
  })

  it('answers a plain GET with 426', async () => {
    const { app, tools, start } = await setup()
    const runId = await start({ tool_uses: [gate('a', 'a')] })
    tools.open('a')
    const response = await app.inject({ url: `/v1/runs/${runId}/events` })
    expect(response.statusCode).toBe(426)
    expect(response.json().code).toBe('websocket_required')
  })
})

function parseSse(body: string): Array<Record<string, string>> {
  return body
    .split('\n\n')
    .map((chunk) =>
      Object.fromEntries(
        chunk
          .split('\n')
          .flatMap((line) => (/^(id|event|data): /.test(line) ? [line.split(/: (.*)/s).slice(0, 2)] : [])),
      ),
    )
    .filter((record) => record.data !== undefined)
}
