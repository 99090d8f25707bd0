// Pins approvals on a listening server with named keys and roles: an approver finds asks through
// GET /v1/runs and answers them, a runner cannot; permission.resolved names the key, never the
// key itself; asks carry a deadline and hints; "allow always" adds one session rule; PATCH
// /v1/sessions checks rules as creation does; waiting asks hold no place among the calls in
// flight, have their own bound, and pause the call's deadline (docs/adr/0240–0242).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunEvent } from '../../src/events/run-event.js'
import { runCompleted } from '../helpers/run-completion.js'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'
import type { WireJson } from '../helpers/wire-json.js'
import { connect } from '../helpers/ws-client.js'

const KEYS =
  'ci=acme:runner:runner-secret,alice=acme:approver:approver-secret,ops=acme:admin:admin-secret,bob=globex:admin:globex-secret'
const RUNNER = 'runner-secret'
const APPROVER = 'approver-secret'
const ADMIN = 'admin-secret'

let server: TestServer

beforeAll(async () => {
  server = await startTestServer({
    lifetime: 'manual',
    env: {
      TOOLEXEC_API_KEYS: KEYS,
      TOOLEXEC_MAX_CALLS_IN_FLIGHT: '1',
      TOOLEXEC_MAX_WAITING_ASKS: '3',
      TOOLEXEC_MAX_PERMISSION_TIMEOUT_MS: '3600000',
    },
  })
})
afterAll(async () => {
  await server.close()
})

async function call(key: string, method: string, url: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? undefined : (JSON.parse(text) as WireJson) }
}

// Write asks in the default mode when no rule allows it; with two tenants Bash needs bubblewrap.
const write = (id: string, file: string, content = file) => ({
  type: 'tool_use',
  id,
  name: 'Write',
  input: { file_path: file, content },
})

async function startRun(body: Record<string, unknown>, key = RUNNER): Promise<string> {
  const started = await call(key, 'POST', '/v1/runs', { wait: false, ...body })
  expect(started.status).toBe(202)
  return started.body!.run_id as string
}

/** Waits until GET /v1/runs lists the run with `count` open asks, as an approver polling would. */
async function openAsksOf(runId: string, count = 1): Promise<Array<Record<string, string>>> {
  for (;;) {
    const page = await call(APPROVER, 'GET', '/v1/runs?has_open_asks=true&status=running')
    const run = (page.body!.runs as Array<WireJson>).find((candidate) => candidate.run_id === runId)
    if (run && run.open_asks.length >= count) return run.open_asks
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const resolvedOf = (events: RunEvent[]) =>
  events.filter(
    (event): event is Extract<RunEvent, { type: 'permission.resolved' }> => event.type === 'permission.resolved',
  )

describe('who may answer', () => {
  it('an approver cannot start a run; a runner cannot answer; the answer names the approver key', async () => {
    const refused = await call(APPROVER, 'POST', '/v1/runs', { wait: true, tool_uses: [write('t0', 'refused.txt')] })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ code: 'role_forbidden' })
    expect(refused.body!.detail).toContain('"alice" has the approver role')
    // Nor through /mcp or a new session: both start work.
    expect((await call(APPROVER, 'POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(403)
    expect((await call(APPROVER, 'POST', '/v1/sessions', {})).status).toBe(403)

    const runId = await startRun({ tool_uses: [write('t1', 'approved.txt')] })
    const [ask] = await openAsksOf(runId)
    expect(Date.parse(ask!.expires_at!)).toBeGreaterThan(Date.now())
    const runnerAnswer = await call(RUNNER, 'POST', `/v1/runs/${runId}/permissions/${ask!.request_id}`, {
      decision: 'allow',
    })
    expect(runnerAnswer.status).toBe(403)
    expect(runnerAnswer.body!.detail).toContain('cannot answer permission asks')
    // Nor over the run's event socket: the frame gets an error frame, the ask stays open.
    const socket = connect(`${server.wsUrl}/v1/runs/${runId}/events`, { authorization: `Bearer ${RUNNER}` })
    await socket.opened
    socket.send({ type: 'permission.response', request_id: ask!.request_id, decision: 'allow' })
    expect(await socket.until((frame) => frame.type === 'error')).toMatchObject({ code: 'role_forbidden' })
    socket.socket.close()
    const answered = await call(APPROVER, 'POST', `/v1/runs/${runId}/permissions/${ask!.request_id}`, {
      decision: 'allow',
    })
    expect(answered.status).toBe(200)
    const events = await runCompleted(server.app, runId, 'acme')
    const requested = events.find((event) => event.type === 'permission.requested')
    expect(requested).toMatchObject({
      hints: { read_only: false, destructive: false, asked_by: { type: 'default' } },
      expires_at: ask!.expires_at,
    })
    expect(resolvedOf(events)).toEqual([
      expect.objectContaining({ decision: 'allow', reason: 'answer', answered_by: 'alice' }),
    ])
    expect(JSON.stringify(events)).not.toContain(APPROVER)
    const view = await call(RUNNER, 'GET', `/v1/runs/${runId}`)
    expect(view.body!.resolved_permissions).toEqual([
      { request_id: ask!.request_id, decision: 'allow', reason: 'answer', answered_by: 'alice' },
    ])
    const result = events.find((event) => event.type === 'tool.result')
    expect(result).toMatchObject({ result: { tool_use_id: 't1' } })
    expect((result as { result: { is_error?: boolean } }).result.is_error).toBeUndefined()
  })

  it('lists only the tenant’s own runs, newest first, page by page without gaps or repeats', async () => {
    const ids: string[] = []
    for (let index = 0; index < 5; index++) {
      const run = await call(ADMIN, 'POST', '/v1/runs', {
        wait: true,
        tool_uses: [write(`p${index}`, `p${index}.txt`)],
      })
      ids.push(run.body!.run_id as string)
    }
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await call(ADMIN, 'GET', `/v1/runs?status=completed&limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      expect(page.status).toBe(200)
      seen.push(...(page.body!.runs as Array<{ run_id: string }>).map((run) => run.run_id))
      cursor = page.body!.next_cursor as string | undefined
    } while (cursor)
    expect(new Set(seen).size).toBe(seen.length)
    // Newest first: the five just made, in reverse order of creation, come before any older ones.
    expect(seen.filter((id) => ids.includes(id))).toEqual([...ids].reverse())
    const other = await call('globex-secret', 'GET', '/v1/runs')
    expect((other.body!.runs as Array<{ run_id: string }>).map((run) => run.run_id)).not.toContain(ids[0])
    expect((await call(ADMIN, 'GET', '/v1/runs?cursor=not-a-cursor')).body).toMatchObject({ code: 'invalid_cursor' })
    const sessionOf = (await call(ADMIN, 'GET', `/v1/runs/${ids[0]}`)).body!.session_id as string
    const bySession = await call(ADMIN, 'GET', `/v1/runs?session_id=${sessionOf}`)
    expect((bySession.body!.runs as Array<{ run_id: string }>).map((run) => run.run_id)).toEqual([ids[0]])
  })
})

describe('asks a person can judge', () => {
  it('"allow always" adds exactly one rule, and the next identical call runs unasked', async () => {
    const session = await call(ADMIN, 'POST', '/v1/sessions', {})
    const sessionId = session.body!.session_id as string
    const first = await startRun({ session_id: sessionId, tool_uses: [write('a1', 'always.txt', 'one')] })
    const [ask] = await openAsksOf(first)
    await call(APPROVER, 'POST', `/v1/runs/${first}/permissions/${ask!.request_id}`, {
      decision: 'allow',
      always: true,
    })
    const events = await runCompleted(server.app, first, 'acme')
    expect(resolvedOf(events)).toEqual([
      expect.objectContaining({
        decision: 'allow',
        answered_by: 'alice',
        rule_added: expect.stringMatching(/^Write\(\/\/.*always\.txt\)$/),
      }),
    ])
    const rule = resolvedOf(events)[0]!.rule_added
    const after = await call(ADMIN, 'GET', `/v1/sessions/${sessionId}`)
    expect(after.body!.permissions.allow).toEqual([rule])
    const second = await call(RUNNER, 'POST', '/v1/runs', {
      wait: true,
      session_id: sessionId,
      tool_uses: [write('a2', 'always.txt', 'two')],
    })
    expect(second.body!.results[0]).toMatchObject({ tool_use_id: 'a2' })
    expect(second.body!.results[0].is_error).toBeUndefined()
  })

  it('PATCH /v1/sessions replaces rules checked as at creation, for approvers, not runners', async () => {
    const sessionId = (await call(ADMIN, 'POST', '/v1/sessions', {})).body!.session_id as string
    const patch = (key: string, permissions: unknown) =>
      call(key, 'PATCH', `/v1/sessions/${sessionId}`, { permissions })
    expect((await patch(RUNNER, { allow: ['Bash(ls)'] })).status).toBe(403)
    expect((await patch(APPROVER, { allow: ['Bash(ls'] })).body).toMatchObject({ code: 'invalid_permission_rule' })
    const patched = await patch(APPROVER, { allow: ['Bash(ls)'], deny: ['Bash(rm:*)'] })
    expect(patched.status).toBe(200)
    expect(patched.body!.permissions).toEqual({ allow: ['Bash(ls)'], deny: ['Bash(rm:*)'], ask: [] })
    expect((await patch(APPROVER, { ask: ['Read'] })).body!.permissions).toEqual({
      allow: ['Bash(ls)'],
      deny: ['Bash(rm:*)'],
      ask: ['Read'],
    })
  })

  it('refuses a permission_timeout_ms over the operator maximum', async () => {
    const refused = await call(RUNNER, 'POST', '/v1/runs', {
      wait: false,
      permission_timeout_ms: 3_600_001,
      tool_uses: [write('x', 'x.txt')],
    })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ code: 'permission_timeout_too_long' })
  })
})

describe('asks that wait', () => {
  it('hold no place among the calls in flight, pause the call deadline, and have their own bound', async () => {
    // TOOLEXEC_MAX_CALLS_IN_FLIGHT is 1: a call waiting for a person must not hold it.
    const waiting = await startRun({ call_timeout_ms: 100, tool_uses: [write('w1', 'waited.txt')] })
    const [ask] = await openAsksOf(waiting)
    const meanwhile = await call(ADMIN, 'POST', '/v1/runs', { wait: true, tool_uses: [write('m1', 'meanwhile.txt')] })
    expect(meanwhile.status).toBe(200)
    const ready = await call(ADMIN, 'GET', '/readyz')
    expect(ready.body!.runs.asks_waiting).toBe(1)
    // Well past the call's own deadline of 100 ms: it is not timed out while nobody has answered.
    await new Promise((resolve) => setTimeout(resolve, 400))
    await call(APPROVER, 'POST', `/v1/runs/${waiting}/permissions/${ask!.request_id}`, { decision: 'allow' })
    const events = await runCompleted(server.app, waiting, 'acme')
    const result = events.find((event) => event.type === 'tool.result')
    expect(result).toMatchObject({ result: { tool_use_id: 'w1' } })
    expect((result as { result: { is_error?: boolean } }).result.is_error).toBeUndefined()

    // TOOLEXEC_MAX_WAITING_ASKS is 3: a fourth ask is denied at once, saying why.
    const askingSession = await call(ADMIN, 'POST', '/v1/sessions', { permissions: { ask: ['Glob'] } })
    const run = await startRun({
      session_id: askingSession.body!.session_id,
      tool_uses: [1, 2, 3, 4].map((index) => ({
        type: 'tool_use',
        id: `b${index}`,
        name: 'Glob',
        input: { pattern: `*${index}` },
      })),
    })
    await openAsksOf(run, 3)
    const cancelled = await call(APPROVER, 'POST', `/v1/runs/${run}/cancel`, {})
    expect(cancelled.status).toBe(202)
    const all = await runCompleted(server.app, run, 'acme')
    const texts = all
      .filter((event) => event.type === 'tool.result')
      .map((event) => (event as { result: { content: string } }).result.content)
    expect(texts.filter((text) => text.includes('TOOLEXEC_MAX_WAITING_ASKS'))).toHaveLength(1)
  })
})
