// Pins GET /v1/stream: run.start first, blocks start as soon as they are complete (before the
// message ends), raw Messages stream events and tool_use frames, max_tokens, and a client leaving.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { runCompleted } from '../helpers/run-completion.js'
import { delta, start, stop } from '../helpers/stream-events.js'
import { createTestTools } from '../helpers/test-tools.js'
import { injectSocket } from '../helpers/ws-client.js'

async function setup() {
  const tools = createTestTools()
  const { app } = await buildTestApp({ extraTools: tools.tools })
  return { app, tools }
}

describe('GET /v1/stream', () => {
  it('starts the first block before the message is complete and streams the run events back', async () => {
    const { app, tools } = await setup()
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start', max_concurrency: 2 })
    stream.send({ type: 'message_start', message: { id: 'msg_1', role: 'assistant', content: [] } })
    stream.send(start(0, 'toolu_a', 'Gate'))
    stream.send(delta(0, '{"key": "a"}'))
    stream.send(stop(0))
    stream.send(start(1, 'toolu_b', 'Echo'))
    // The message is still streaming, yet the first call is already running.
    await tools.started('a')
    stream.send(delta(1, '{"text": "b"}'))
    stream.send(stop(1))
    stream.send({ type: 'message_delta', delta: { stop_reason: 'tool_use' } })
    stream.send({ type: 'message_stop' })
    tools.open('a', 'gate a')
    expect((await stream.closed).code).toBe(1000)
    const results = stream.received.filter((frame) => frame.type === 'tool.result').map((frame) => frame.result)
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_a', content: 'gate a' },
      { type: 'tool_result', tool_use_id: 'toolu_b', content: 'b' },
    ])
    const runId = (await stream.until(() => true)).run_id as string
    const run = (await app.inject({ url: `/v1/runs/${runId}` })).json()
    expect(run).toMatchObject({ status: 'completed', tool_use_ids: ['toolu_a', 'toolu_b'] })
  })

  it('takes tool_use frames and input.end, and refuses the last block of a max_tokens message', async () => {
    const { app, tools } = await setup()
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start' })
    stream.send({ type: 'tool_use', tool_use: { type: 'tool_use', id: 'x', name: 'Echo', input: { text: 'x' } } })
    stream.send(start(1, 'y', 'Echo'))
    stream.send(delta(1, '{"text": "y"}'))
    stream.send(stop(1))
    stream.send({ type: 'message_delta', delta: { stop_reason: 'max_tokens' } })
    await stream.closed
    const results = stream.received.filter((frame) => frame.type === 'tool.result').map((frame) => frame.result)
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'x', content: 'x' },
      { type: 'tool_result', tool_use_id: 'y', content: expect.stringContaining('max_tokens'), is_error: true },
    ])
    expect(tools.executions.echo).toBe(1)
  })

  it('answers frames out of turn with error frames and keeps the socket', async () => {
    const { app } = await setup()
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'input.end' })
    stream.send({ type: 'run.start', max_concurrency: 0 })
    stream.send({ type: 'run.start' })
    stream.send({ type: 'run.start' })
    stream.send({ type: 'tool_use', tool_use: { type: 'tool_use', id: 'a', name: 'Echo', input: { text: 'a' } } })
    stream.send({ type: 'tool_use', tool_use: { type: 'tool_use', id: 'a', name: 'Echo', input: { text: 'a' } } })
    stream.send({ type: 'input.end' })
    await stream.closed
    const errors = stream.received.filter((frame) => frame.type === 'error').map((frame) => frame.code)
    expect(errors).toEqual(['stream_not_started', 'invalid_frame', 'stream_already_started', 'duplicate_tool_use_id'])
  })

  it('ends the input when the client leaves: complete blocks run, the open one is refused', async () => {
    const { app, tools } = await setup()
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start' })
    stream.send(start(0, 'a', 'Gate'))
    stream.send(delta(0, '{"key": "a"}'))
    stream.send(stop(0))
    stream.send(start(1, 'b', 'Echo'))
    await tools.started('a')
    // The first frame, awaited: the call may start before the socket has delivered any frame.
    const runId = (await stream.until(() => true)).run_id as string
    stream.socket.terminate()
    await stream.closed
    tools.open('a')
    const events = await runCompleted(app, runId)
    const results = events.filter((event) => event.type === 'tool.result').map((event) => event.result)
    expect(results.map((result) => [result.tool_use_id, result.is_error ?? false])).toEqual([
      ['a', false],
      ['b', true],
    ])
  })

  it('answers a plain GET with 426', async () => {
    const { app } = await setup()
    const response = await app.inject({ url: '/v1/stream' })
    expect(response.statusCode).toBe(426)
    expect(response.json().code).toBe('websocket_required')
  })
})
