// Pins permission asks over the wire on a listening server: answers by WebSocket frame and by POST,
// edited input (re-checked against deny rules), deny messages, and the denials when nobody answers.
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createParser } from 'eventsource-parser'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'
import { connect, type Frame } from '../helpers/ws-client.js'

type ToolResult = { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean }

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({ lifetime: 'manual' })
})
afterAll(async () => {
  await server.close()
})

async function post(url: string, body: unknown) {
  return fetch(`${server.baseUrl}${url}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
}

/** A session of its own per test, so each test has a fresh directory to look at. */
async function createSession(cwd: string, deny: string[] = []) {
  const response = await post('/v1/sessions', { cwd, permissions: { deny } })
  expect(response.status).toBe(201)
  return (await response.json()) as { session_id: string; cwd: string }
}

const bash = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } })

async function startRun(body: Record<string, unknown>) {
  const response = await post('/v1/runs', { wait: false, ...body })
  expect(response.status).toBe(202)
  return (await response.json()) as { run_id: string; events_url: string }
}

/** The run's ask; fails at once (instead of hanging) if the run completes without asking. */
async function nextAsk(client: ReturnType<typeof connect>): Promise<Frame> {
  const frame = await client.until((next) => next.type === 'permission.requested' || next.type === 'run.completed')
  expect(frame.type).toBe('permission.requested')
  return frame
}

/** The tool.result events, checked to be exactly one per tool_use id and in block order. */
function resultsOf(frames: Frame[], toolUseIds: string[]): ToolResult[] {
  const results = frames.filter((frame) => frame.type === 'tool.result').map((frame) => frame.result as ToolResult)
  expect(results.map((result) => result.tool_use_id)).toEqual(toolUseIds)
  expect(frames.at(-1)).toMatchObject({ type: 'run.completed' })
  return results
}

describe('answering an ask over the run event WebSocket', () => {
  it('allow: the call runs for real and permission.resolved says allow', async () => {
    const session = await createSession('ws-allow')
    const run = await startRun({
      session_id: session.session_id,
      tool_uses: [bash('t1', 'touch made.txt && echo made')],
    })
    const client = connect(`${server.wsUrl}${run.events_url}`)
    const asked = await nextAsk(client)
    expect(asked).toMatchObject({
      tool_use_id: 't1',
      tool: 'Bash',
      input: { command: 'touch made.txt && echo made' },
      message: 'Bash needs approval: no rule allows this call.',
    })
    // The call waits for the answer: nothing has touched the disk yet.
    expect(existsSync(path.join(session.cwd, 'made.txt'))).toBe(false)
    client.send({ type: 'permission.response', request_id: asked.request_id, decision: 'allow' })
    expect((await client.closed).code).toBe(1000)

    const resolved = client.received.filter((frame) => frame.type === 'permission.resolved')
    expect(resolved).toEqual([expect.objectContaining({ request_id: asked.request_id, decision: 'allow' })])
    const [result] = resultsOf(client.received, ['t1'])
    expect(result).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'made' })
    expect(existsSync(path.join(session.cwd, 'made.txt'))).toBe(true)
  })

  it('allow with updated_input: the edited command is the one that runs', async () => {
    const session = await createSession('ws-edited')
    const run = await startRun({ session_id: session.session_id, tool_uses: [bash('t1', 'touch asked.txt')] })
    const client = connect(`${server.wsUrl}${run.events_url}`)
    const asked = await nextAsk(client)
    client.send({
      type: 'permission.response',
      request_id: asked.request_id,
      decision: 'allow',
      updated_input: { command: 'touch edited.txt && echo edited' },
    })
    await client.closed

    const [result] = resultsOf(client.received, ['t1'])
    expect(result).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'edited' })
    expect(existsSync(path.join(session.cwd, 'edited.txt'))).toBe(true)
    expect(existsSync(path.join(session.cwd, 'asked.txt'))).toBe(false)
  })

  it('allow with updated_input that a deny rule catches: denied, nothing runs', async () => {
    const session = await createSession('ws-edited-denied', ['Bash(rm:*)'])
    await writeFile(path.join(session.cwd, 'keep.txt'), 'precious')
    const run = await startRun({ session_id: session.session_id, tool_uses: [bash('t1', 'touch asked.txt')] })
    const client = connect(`${server.wsUrl}${run.events_url}`)
    const asked = await nextAsk(client)
    client.send({
      type: 'permission.response',
      request_id: asked.request_id,
      decision: 'allow',
      updated_input: { command: 'rm -f keep.txt' },
    })
    await client.closed

    const [result] = resultsOf(client.received, ['t1'])
    expect(result).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: 'Permission to use Bash has been denied.',
      is_error: true,
    })
    expect(existsSync(path.join(session.cwd, 'keep.txt'))).toBe(true)
    expect(existsSync(path.join(session.cwd, 'asked.txt'))).toBe(false)
  })

  it('allow with updated_input that fails the schema: an input validation error, nothing runs', async () => {
    const session = await createSession('ws-edited-invalid')
    const run = await startRun({ session_id: session.session_id, tool_uses: [bash('t1', 'touch asked.txt')] })
    const client = connect(`${server.wsUrl}${run.events_url}`)
    const asked = await nextAsk(client)
    client.send({ type: 'permission.response', request_id: asked.request_id, decision: 'allow', updated_input: {} })
    await client.closed

    const [result] = resultsOf(client.received, ['t1'])
    expect(result?.is_error).toBe(true)
    expect(result?.content).toMatch(/^<tool_use_error>InputValidationError: /)
    expect(existsSync(path.join(session.cwd, 'asked.txt'))).toBe(false)
  })

  it('deny with a message: the message is the result text', async () => {
    const session = await createSession('ws-deny')
    const run = await startRun({ session_id: session.session_id, tool_uses: [bash('t1', 'touch nope.txt')] })
    const client = connect(`${server.wsUrl}${run.events_url}`)
    const asked = await nextAsk(client)
    const message = 'Not on the shared box: write to your own scratch directory.'
    client.send({ type: 'permission.response', request_id: asked.request_id, decision: 'deny', message })
    await client.closed

    const resolved = client.received.filter((frame) => frame.type === 'permission.resolved')
    expect(resolved).toEqual([expect.objectContaining({ request_id: asked.request_id, decision: 'deny' })])
    const [result] = resultsOf(client.received, ['t1'])
    expect(result).toEqual({ type: 'tool_result', tool_use_id: 't1', content: message, is_error: true })
    expect(existsSync(path.join(session.cwd, 'nope.txt'))).toBe(false)
  })
})

describe('asks nobody answers', () => {
  it('a wait: false run with permission_timeout_ms is denied once the time is up', async () => {
    const session = await createSession('timeout')
    const run = await startRun({
      session_id: session.session_id,
      permission_timeout_ms: 300,
      tool_uses: [bash('t1', 'touch late.txt')],
    })
    const client = connect(`${server.wsUrl}${run.events_url}`)
    await client.closed

    const types = client.received.map((frame) => frame.type)
    expect(types.indexOf('permission.requested')).toBeGreaterThan(-1)
    expect(client.received.find((frame) => frame.type === 'permission.resolved')).toMatchObject({ decision: 'deny' })
    const [result] = resultsOf(client.received, ['t1'])
    expect(result).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: 'Permission to use Bash has been denied: this call needs approval and nobody answered within 300 ms.',
      is_error: true,
    })
    expect(existsSync(path.join(session.cwd, 'late.txt'))).toBe(false)
  })

  it('a wait: true run without permission_timeout_ms is denied at once, without asking', async () => {
    const session = await createSession('no-approver')
    const response = await post('/v1/runs', { session_id: session.session_id, tool_uses: [bash('t1', 'touch x.txt')] })
    expect(response.status).toBe(200)
    const body = (await response.json()) as { run_id: string; results: ToolResult[] }
    expect(body.results).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content:
          'Permission to use Bash has been denied: this call needs approval and no approver is connected to answer.',
        is_error: true,
      },
    ])
    // Replaying the finished run's events: no ask was ever published.
    const replay = connect(`${server.wsUrl}/v1/runs/${body.run_id}/events`)
    await replay.closed
    resultsOf(replay.received, ['t1'])
    expect(replay.received.some((frame) => frame.type.startsWith('permission.'))).toBe(false)
    expect(existsSync(path.join(session.cwd, 'x.txt'))).toBe(false)
  })
})

describe('answering with POST /v1/runs/{id}/permissions/{request_id} (no socket)', () => {
  it('allow with updated_input and deny with a message, read over SSE; a second answer is 404', async () => {
    const session = await createSession('http-answers')
    const run = await startRun({
      session_id: session.session_id,
      tool_uses: [bash('a', 'touch a.txt'), bash('b', 'touch b.txt')],
    })
    const answers: Record<string, Record<string, unknown>> = {
      a: { decision: 'allow', updated_input: { command: 'touch a-edited.txt && echo a done' } },
      b: { decision: 'deny', message: 'b is not needed.' },
    }
    const events: Frame[] = []
    const lateAnswers: Promise<Response>[] = []
    const answered: Promise<Response>[] = []
    const stream = await fetch(`${server.baseUrl}${run.events_url}`, { headers: { accept: 'text/event-stream' } })
    const parser = createParser({
      onEvent: (message) => {
        const event = JSON.parse(message.data) as Frame
        events.push(event)
        if (event.type === 'permission.requested') {
          const url = `/v1/runs/${run.run_id}/permissions/${String(event.request_id)}`
          answered.push(post(url, answers[String(event.tool_use_id)]))
        }
        // Once resolved, the request is closed: a late answer finds nothing to answer.
        if (event.type === 'permission.resolved') {
          lateAnswers.push(
            post(`/v1/runs/${run.run_id}/permissions/${String(event.request_id)}`, { decision: 'allow' }),
          )
        }
      },
    })
    const decoder = new TextDecoder()
    for await (const chunk of stream.body!) parser.feed(decoder.decode(chunk, { stream: true }))

    const deliveries = await Promise.all(answered)
    expect(deliveries.map((response) => response.status)).toEqual([200, 200])
    expect(await deliveries[0]!.json()).toMatchObject({ run_id: run.run_id, decision: 'allow' })
    const late = await Promise.all(lateAnswers)
    expect(late).toHaveLength(2)
    for (const response of late) {
      expect(response.status).toBe(404)
      expect(await response.json()).toMatchObject({ code: 'permission_request_not_found' })
    }
    expect(events.filter((event) => event.type === 'permission.resolved').map((event) => event.decision)).toEqual([
      'allow',
      'deny',
    ])
    const expected = [
      { type: 'tool_result', tool_use_id: 'a', content: 'a done' },
      { type: 'tool_result', tool_use_id: 'b', content: 'b is not needed.', is_error: true },
    ]
    expect(resultsOf(events, ['a', 'b'])).toEqual(expected)
    const record = (await (await fetch(`${server.baseUrl}/v1/runs/${run.run_id}`)).json()) as { results: unknown }
    expect(record.results).toEqual(expected)
    expect(existsSync(path.join(session.cwd, 'a-edited.txt'))).toBe(true)
    expect(existsSync(path.join(session.cwd, 'a.txt'))).toBe(false)
    expect(existsSync(path.join(session.cwd, 'b.txt'))).toBe(false)
  })

  it('an unknown request id is 404 permission_request_not_found', async () => {
    const session = await createSession('http-unknown')
    const run = await startRun({ session_id: session.session_id, tool_uses: [bash('t1', 'echo hi')] })
    const response = await post(`/v1/runs/${run.run_id}/permissions/perm_missing`, { decision: 'allow' })
    expect(response.status).toBe(404)
    expect(await response.json()).toMatchObject({ code: 'permission_request_not_found' })
    const client = connect(`${server.wsUrl}${run.events_url}`)
    await client.closed
    expect(resultsOf(client.received, ['t1'])).toEqual([{ type: 'tool_result', tool_use_id: 't1', content: 'hi' }])
  })
})
