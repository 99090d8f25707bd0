// Pins the audit trail on a listening server (docs/audit.md): every way a permission is decided —
// rule allow and deny, mode, hook allow, deny and ask, a person's allow (edited input, "always")
// and deny, a timeout, a cancel — leaves exactly one decision record with its source and the
// answering key's name, every call one call record with its outcome; tenant B never reads
// tenant A's records; the input is a digest unless the operator keeps inputs, then redacted.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { inputDigest } from '../../src/audit/audit-log.js'
import { runCompleted } from '../helpers/run-completion.js'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'
import type { WireJson } from '../helpers/wire-json.js'

const KEYS = 'ops=acme:admin:ops-secret,alice=acme:approver:alice-secret,bob=globex:admin:bob-secret'
const fixtures = fileURLToPath(new URL('./fixtures/hooks/', import.meta.url))
const decide = (decision: string, reason: string) => ({
  type: 'command' as const,
  command: `sh '${path.join(fixtures, 'decide.sh')}' ${decision} '${reason}'`,
  timeout: 10,
})

let server: TestServer
let directory: string

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'toolexec-audit-'))
  const settings = path.join(directory, 'settings.json')
  await writeFile(
    settings,
    JSON.stringify({
      hooks: {
        PreToolUse: [
          { matcher: 'Glob', hooks: [decide('allow', 'globs are fine')] },
          { matcher: 'Grep', hooks: [decide('deny', 'no searching today')] },
          { matcher: 'TodoWrite', hooks: [decide('ask', 'a person checks todos')] },
        ],
      },
    }),
  )
  server = await startTestServer({
    lifetime: 'manual',
    env: { TOOLEXEC_API_KEYS: KEYS, TOOLEXEC_SETTINGS: settings, TOOLEXEC_AUDIT_INPUTS: 'true' },
  })
})
afterAll(async () => {
  await server?.close()
  await rm(directory, { recursive: true, force: true })
})

async function call(key: string, method: string, url: string, body?: unknown): Promise<WireJson> {
  const response = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${key}-secret`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { ...((await response.json()) as WireJson), http: response.status }
}

const block = (id: string, name: string, input: WireJson) => ({ type: 'tool_use', id, name, input })
const write = (id: string, file: string) => block(id, 'Write', { file_path: file, content: id })

/** Starts a run in `session` and, when it asks, gives `answer` (or cancels); resolves once it is over. */
async function runWith(session: string, toolUse: WireJson, answer?: WireJson | 'cancel', options: WireJson = {}) {
  const started = await call('ops', 'POST', '/v1/runs', {
    wait: false,
    session_id: session,
    tool_uses: [toolUse],
    ...options,
  })
  const runId = started.run_id as string
  if (answer !== undefined) {
    let asks: WireJson[] = []
    while (asks.length === 0) {
      asks = (await call('alice', 'GET', `/v1/runs/${runId}`)).permission_requests as WireJson[]
      if (asks.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    }
    if (answer === 'cancel') await call('alice', 'POST', `/v1/runs/${runId}/cancel`, {})
    else await call('alice', 'POST', `/v1/runs/${runId}/permissions/${asks[0]!.request_id}`, answer)
  }
  await runCompleted(server.app, runId, 'acme')
  await server.app.audit.flush()
  return runId
}

async function recordsOf(runId: string, key = 'ops'): Promise<WireJson[]> {
  return (await call(key, 'GET', `/v1/audit?run_id=${runId}`)).records as WireJson[]
}

describe('the audit trail', () => {
  it('records every decision path once, with its source, and every call with its outcome', async () => {
    const session = (
      await call('ops', 'POST', '/v1/sessions', {
        permissions: { allow: ['Write(allowed.txt)'], deny: ['Write(secret.txt)'] },
      })
    ).session_id as string
    const plan = (await call('ops', 'POST', '/v1/sessions', { permission_mode: 'plan' })).session_id as string
    const cases: Array<[string, () => Promise<string>, WireJson, WireJson]> = [
      [
        'rule allow',
        () => runWith(session, write('r1', 'allowed.txt')),
        { decision: 'allow', source: { type: 'rule', rule: 'Write(allowed.txt)' } },
        { outcome: 'ok' },
      ],
      [
        'rule deny',
        () => runWith(session, write('r2', 'secret.txt')),
        { decision: 'deny', source: { type: 'rule', rule: 'Write(secret.txt)' } },
        { outcome: 'denied' },
      ],
      [
        'mode',
        () => runWith(plan, write('m1', 'planned.txt')),
        { decision: 'deny', source: { type: 'mode', mode: 'plan' } },
        { outcome: 'denied' },
      ],
      [
        'hook allow',
        () => runWith(session, block('h1', 'Glob', { pattern: '*.txt' })),
        { decision: 'allow', source: { type: 'hook', reason: 'globs are fine' } },
        { outcome: 'ok' },
      ],
      [
        'hook deny',
        () => runWith(session, block('h2', 'Grep', { pattern: 'x' })),
        { decision: 'deny', source: { type: 'hook', reason: 'no searching today' } },
        { outcome: 'denied' },
      ],
      [
        'hook ask, answered with an edited input',
        () =>
          runWith(session, block('h3', 'TodoWrite', { todos: [] }), {
            decision: 'allow',
            updated_input: { todos: [{ content: 'edited', status: 'pending', activeForm: 'Editing' }] },
          }),
        { decision: 'allow', source: { type: 'answer', key_name: 'alice', edited_input: true } },
        { outcome: 'ok' },
      ],
      [
        'a person denies',
        () => runWith(session, write('p1', 'denied.txt'), { decision: 'deny', message: 'not now' }),
        { decision: 'deny', source: { type: 'answer', key_name: 'alice' } },
        { outcome: 'denied' },
      ],
      [
        'allow always',
        () => runWith(session, write('p2', 'always.txt'), { decision: 'allow', always: true }),
        { decision: 'allow', source: { type: 'answer', key_name: 'alice', always: true } },
        { outcome: 'ok' },
      ],
      [
        'timeout',
        () => runWith(session, write('t1', 'late.txt'), undefined, { permission_timeout_ms: 1 }),
        { decision: 'deny', source: { type: 'timeout' } },
        { outcome: 'denied' },
      ],
      [
        'cancel',
        () => runWith(session, write('c1', 'cancelled.txt'), 'cancel'),
        { decision: 'deny', source: { type: 'cancel' } },
        { outcome: 'cancelled' },
      ],
    ]
    for (const [name, running, decision, outcome] of cases) {
      // One at a time: the session takes one run at a time.
      const runId = await running().catch((error: unknown) => {
        throw new Error(`${name}: ${String(error)}`)
      })
      const records = await recordsOf(runId)
      const decisions = records.filter((record) => record.kind === 'decision')
      const calls = records.filter((record) => record.kind === 'call')
      expect(decisions, name).toEqual([expect.objectContaining(decision)])
      expect(calls, name).toEqual([expect.objectContaining(outcome)])
      expect(decisions[0]).toMatchObject({ tenant: 'acme', session_id: expect.any(String), run_id: runId })
      expect(decisions[0]!.input_sha256).toMatch(/^[0-9a-f]{64}$/)
    }
  }, 60_000)

  it('keeps tenants apart, pages without gaps, digests inputs and redacts secrets', async () => {
    const session = (await call('ops', 'POST', '/v1/sessions', { permissions: { allow: ['Glob'] } })).session_id
    const input = { pattern: '*.md', path: '.' }
    const runId = await runWith(session, block('g1', 'Glob', input))
    const [record] = (await recordsOf(runId)).filter((candidate) => candidate.kind === 'decision')
    expect(record!.input_sha256).toBe(inputDigest(input))
    expect(record!.input).toEqual(input)
    expect(await recordsOf(runId, 'bob')).toEqual([])
    const all: string[] = []
    let cursor: string | undefined
    do {
      const page = await call('ops', 'GET', `/v1/audit?limit=3${cursor ? `&cursor=${cursor}` : ''}`)
      all.push(...(page.records as WireJson[]).map((item) => item.id as string))
      cursor = page.next_cursor as string | undefined
    } while (cursor)
    expect(new Set(all).size).toBe(all.length)
    expect([...all].sort().reverse()).toEqual(all)
    expect(await call('ops', 'GET', '/v1/audit?cursor=nope')).toMatchObject({ http: 400, code: 'invalid_cursor' })
    // A date that is not ISO 8601 with an offset is refused, not read as "no bound".
    const badDate = await call('ops', 'GET', '/v1/audit?after=yesterday')
    expect(badDate.http).toBe(400)
    expect(badDate.code).toBe('invalid_request')
    server.app.audit.record({
      kind: 'decision',
      tenant: 'acme',
      session_id: 's',
      run_id: 'r',
      tool_use_id: 't',
      tool: 'WebFetch',
      input: { url: 'https://x', headers: { Authorization: 'Bearer abc' }, api_key: 'k' },
      decision: 'allow',
      source: { type: 'default' },
    })
    await server.app.audit.flush()
    const [redacted] = (await call('ops', 'GET', '/v1/audit?run_id=r')).records as WireJson[]
    expect(redacted!.input).toEqual({
      url: 'https://x',
      headers: { Authorization: '[redacted]' },
      api_key: '[redacted]',
    })
  })

  it('a file sink on a full disk fails no call, and /readyz and /metrics say so', async () => {
    // /dev/full refuses every write with ENOSPC, as a full disk does.
    const full = await startTestServer({ lifetime: 'manual', env: { TOOLEXEC_AUDIT_FILE: '/dev/full' } })
    try {
      const response = await fetch(`${full.baseUrl}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ tool_uses: [block('f1', 'Glob', { pattern: '*' })] }),
      })
      expect(response.status).toBe(200)
      expect(((await response.json()) as WireJson).results[0].is_error).toBeUndefined()
      await full.app.audit.flush()
      const ready = await fetch(`${full.baseUrl}/readyz`)
      expect(ready.status).toBe(200)
      expect(((await ready.json()) as WireJson).audit).toMatchObject({
        store: { ok: true, written: 2 },
        file: { ok: false, dropped: 2, last_error: 'ENOSPC' },
      })
      const metrics = await (await fetch(`${full.baseUrl}/metrics`)).text()
      expect(metrics).toContain('toolexec_audit_sink_up{sink="file"} 0')
      expect(metrics).toContain('toolexec_audit_dropped_total{sink="file"} 2')
    } finally {
      await full.close()
    }
  })
})
