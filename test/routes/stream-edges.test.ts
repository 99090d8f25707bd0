// Pins /v1/stream edge cases: a stream forwarded verbatim after a max_tokens stop, refused blocks in
// the middle of a frame's actions, and a server shutdown while blocks are still held or open.
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { runCompleted } from '../helpers/run-completion.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { delta, start, stop } from '../helpers/stream-events.js'
import { createTestTools } from '../helpers/test-tools.js'
import { connect, injectSocket } from '../helpers/ws-client.js'

const echo = (id: string, text: string) => ({
  type: 'tool_use',
  tool_use: { type: 'tool_use', id, name: 'Echo', input: { text } },
})

async function setup(env: Record<string, string> = {}) {
  const tools = createTestTools()
  const testApp = await buildTestApp({ extraTools: tools.tools, env })
  return { ...testApp, tools }
}

describe('GET /v1/stream edge cases', () => {
  it('takes the message_stop that follows a max_tokens message_delta without an error frame', async () => {
    const { app } = await setup()
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start' })
    stream.send(start(0, 'a', 'Echo'))
    stream.send(delta(0, '{"text": "cut'))
    stream.send(stop(0))
    stream.send({ type: 'message_delta', delta: { stop_reason: 'max_tokens' } })
    stream.send({ type: 'message_stop' })
    // A frame sent after message_stop is answered: it proves message_stop was handled.
    stream.send({ type: 'input.end' })
    await stream.until((frame) => frame.type === 'error')
    await stream.closed
    const errors = stream.received.filter((frame) => frame.type === 'error').map((frame) => frame.code)
    expect(errors).toEqual(['input_ended'])
  })

  it('still ends the input when a released block is refused with an error frame (duplicate id)', async () => {
    const { app } = await setup()
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start' })
    stream.send(echo('a', 'first'))
    stream.send(start(1, 'a', 'Echo'))
    stream.send(delta(1, '{"text": "again"}'))
    stream.send(stop(1))
    // message_stop releases the held duplicate (an error frame) and must still end the input.
    stream.send({ type: 'message_stop' })
    expect((await stream.closed).code).toBe(1000)
    expect(stream.received.filter((frame) => frame.type === 'error').map((frame) => frame.code)).toEqual([
      'duplicate_tool_use_id',
    ])
    expect(stream.received.at(-1)).toMatchObject({ type: 'run.completed', status: 'completed' })
  })

  it('still ends the input when a released block is over the block limit', async () => {
    const { app } = await setup({ TOOLEXEC_MAX_BLOCKS_PER_RUN: '1' })
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start' })
    stream.send(echo('a', 'first'))
    stream.send(start(1, 'b', 'Echo'))
    stream.send(delta(1, '{"text": "second"}'))
    stream.send(stop(1))
    stream.send({ type: 'message_stop' })
    expect((await stream.closed).code).toBe(1000)
    expect(stream.received.filter((frame) => frame.type === 'error').map((frame) => frame.code)).toEqual([
      'too_many_blocks',
    ])
  })

  it('survives a client that leaves while a refused block is still held, and ends the run', async () => {
    const { app } = await setup()
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start' })
    stream.send(echo('a', 'first'))
    stream.send(start(1, 'a', 'Echo'))
    stream.send(delta(1, '{"text": "again"}'))
    stream.send(stop(1))
    await stream.until((frame) => frame.type === 'tool.result')
    const runId = (await stream.until(() => true)).run_id as string
    const completed = runCompleted(app, runId)
    stream.socket.terminate()
    const events = await completed
    expect(events.filter((event) => event.type === 'tool.result').map((event) => event.tool_use_id)).toEqual(['a'])
  })

  it('gives a held block a result when the server shuts down mid-stream', async () => {
    const { app, tools, close } = await setup({ TOOLEXEC_SHUTDOWN_GRACE_MS: '1' })
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start' })
    stream.send(start(0, 'a', 'Gate'))
    stream.send(delta(0, '{"key": "a"}'))
    stream.send(stop(0))
    stream.send(start(1, 'b', 'Echo'))
    stream.send(delta(1, '{"text": "b"}'))
    stream.send(stop(1))
    await tools.started('a')
    await stream.until((frame) => frame.type === 'tool.queued' && frame.tool_use_id === 'a')
    const runId = (await stream.until(() => true)).run_id as string
    const completed = runCompleted(app, runId)
    await close()
    const results = (await completed).filter((event) => event.type === 'tool.result')
    expect(results.map((event) => event.tool_use_id)).toEqual(['a', 'b'])
  })

  it('gives an open block a result when the server shuts down mid-stream', async () => {
    const { app, tools, close } = await setup({ TOOLEXEC_SHUTDOWN_GRACE_MS: '1' })
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start' })
    stream.send(start(0, 'a', 'Gate'))
    stream.send(delta(0, '{"key": "a"}'))
    stream.send(stop(0))
    stream.send(start(1, 'b', 'Echo'))
    stream.send(delta(1, '{"text": "b"}'))
    stream.send(stop(1))
    stream.send(start(2, 'c', 'Echo'))
    await tools.started('a')
    // The first frame, awaited: the call may start before the socket has delivered any frame.
    const runId = (await stream.until(() => true)).run_id as string
    const completed = runCompleted(app, runId)
    await close()
    const results = (await completed).filter((event) => event.type === 'tool.result')
    expect(results.map((event) => event.tool_use_id)).toEqual(['a', 'b', 'c'])
  })
  it('refuses the upgrade with 503 while the server drains', async () => {
    const tools = createTestTools()
    const { app, baseUrl, wsUrl } = await startTestServer({
      extraTools: tools.tools,
      env: { TOOLEXEC_SHUTDOWN_GRACE_MS: '60000' },
    })
    await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        wait: false,
        tool_uses: [{ type: 'tool_use', id: 'a', name: 'Gate', input: { key: 'a' } }],
      }),
    })
    await tools.started('a')
    const closing = app.close()
    const client = connect(`${wsUrl}/v1/stream`)
    await expect(client.opened).rejects.toThrow('HTTP 503')
    tools.open('a')
    await closing
  })
  it('completes a streamed run on run.cancel without waiting for the rest of the input', async () => {
    const { app, tools } = await setup()
    const stream = await injectSocket(app, '/v1/stream')
    stream.send({ type: 'run.start' })
    stream.send({ type: 'tool_use', tool_use: { type: 'tool_use', id: 'a', name: 'Gate', input: { key: 'a' } } })
    stream.send(start(1, 'b', 'Echo'))
    await tools.started('a')
    // The user pressed stop: the model stream is abandoned, no message_stop will come.
    stream.send({ type: 'run.cancel' })
    expect((await stream.closed).code).toBe(1000)
    expect(stream.received.at(-1)).toMatchObject({ type: 'run.completed', status: 'cancelled' })
    const results = stream.received.filter((frame) => frame.type === 'tool.result')
    expect(results.map((frame) => frame.tool_use_id)).toEqual(['a', 'b'])
    expect(results.every((frame) => (frame.result as { is_error?: boolean }).is_error)).toBe(true)
  })
})
