// Pins PreToolUse hooks configured through the TOOLEXEC_SETTINGS file on a listening server: exit-2
// blocks, input rewrites, disagreeing hooks, an HTTP hook, a hook ask answered over the wire, and a
// hook allow that never beats a deny rule.
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { Settings } from '../../src/config/settings-schema.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { connect, type Frame } from '../helpers/ws-client.js'

type ToolResult = { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean }

const fixtures = fileURLToPath(new URL('./fixtures/hooks/', import.meta.url))
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`
const script = (name: string, ...args: string[]) =>
  [name.endsWith('.mjs') ? 'node' : 'sh', path.join(fixtures, name), ...args].map(quote).join(' ')
const commandHook = (command: string) => ({ type: 'command' as const, command, timeout: 10 })

/** The server with `settings` written to a real file and named by TOOLEXEC_SETTINGS. */
async function serverWithSettings(settings: Settings) {
  const directory = await mkdtemp(path.join(tmpdir(), 'toolexec-hooks-'))
  onTestFinished(() => rm(directory, { recursive: true, force: true }))
  const settingsPath = path.join(directory, 'settings.json')
  await writeFile(settingsPath, JSON.stringify(settings, null, 2))
  const server = await startTestServer({ env: { TOOLEXEC_SETTINGS: settingsPath } })
  const post = (url: string, body: unknown) =>
    fetch(`${server.baseUrl}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  const response = await post('/v1/sessions', { cwd: 'project' })
  const session = (await response.json()) as { session_id: string; cwd: string }
  /** A `wait: true` run in the session; checks one result per block, in the response and the events. */
  const run = async (toolUses: Array<{ id: string }>, options: Record<string, unknown> = {}) => {
    const runResponse = await post('/v1/runs', { session_id: session.session_id, tool_uses: toolUses, ...options })
    expect(runResponse.status).toBe(200)
    const body = (await runResponse.json()) as { run_id: string; results: ToolResult[] }
    const ids = toolUses.map((toolUse) => toolUse.id)
    expect(body.results.map((result) => result.tool_use_id)).toEqual(ids)
    const replay = connect(`${server.wsUrl}/v1/runs/${body.run_id}/events`)
    await replay.closed
    const events = replay.received.filter((frame) => frame.type === 'tool.result')
    expect(events.map((frame) => frame.tool_use_id)).toEqual(ids)
    return body.results
  }
  return { ...server, session, post, run, file: (name: string) => path.join(session.cwd, name) }
}

const bash = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } })

describe('PreToolUse hooks from the settings file', () => {
  it('a command hook that exits 2 blocks the call with its stderr as the reason', async () => {
    const { run, file } = await serverWithSettings({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [commandHook(script('block-touch.sh'))] }] },
    })
    const results = await run([bash('echo', 'echo still runs'), bash('touch', 'touch blocked.txt')])
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'echo', content: 'still runs' },
      {
        type: 'tool_result',
        tool_use_id: 'touch',
        content: 'Blocked by PreToolUse hook: touching files needs a review first',
        is_error: true,
      },
    ])
    expect(existsSync(file('blocked.txt'))).toBe(false)
  })

  it('a hook that answers allow with updatedInput: the rewritten command runs, without an ask', async () => {
    const { run, file } = await serverWithSettings({
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [commandHook(script('rewrite-command.mjs'))] }] },
    })
    // A write with no rule would be denied at once in a wait: true run; the hook's allow skips the ask.
    const results = await run([bash('t1', 'touch original.txt && echo original')])
    expect(results).toEqual([{ type: 'tool_result', tool_use_id: 't1', content: 'rewritten' }])
    expect(existsSync(file('rewritten.txt'))).toBe(true)
    expect(existsSync(file('original.txt'))).toBe(false)
  })

  it('two hooks that disagree: deny beats allow', async () => {
    const { run, file } = await serverWithSettings({
      hooks: {
        PreToolUse: [
          { matcher: 'Bash', hooks: [commandHook(script('decide.sh', 'allow', 'fine by me'))] },
          { matcher: '*', hooks: [commandHook(script('decide.sh', 'deny', 'not during the freeze'))] },
        ],
      },
    })
    const results = await run([bash('t1', 'touch frozen.txt')])
    expect(results).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'Permission to use Bash has been denied by a PreToolUse hook: not during the freeze',
        is_error: true,
      },
    ])
    expect(existsSync(file('frozen.txt'))).toBe(false)
  })

  it('an HTTP hook receives the event JSON and its deny is honoured', async () => {
    const received: Array<{ headers: IncomingHttpHeaders; body: Record<string, unknown> }> = []
    const policy = createServer((request, response) => {
      let text = ''
      request.on('data', (chunk) => {
        text += chunk
      })
      request.on('end', () => {
        received.push({ headers: request.headers, body: JSON.parse(text) as Record<string, unknown> })
        response.setHeader('content-type', 'application/json')
        response.end(
          JSON.stringify({
            hookSpecificOutput: {
              hookEventName: 'PreToolUse',
              permissionDecision: 'deny',
              permissionDecisionReason: 'the policy service says no',
            },
          }),
        )
      })
    })
    await new Promise<void>((resolve) => policy.listen(0, '127.0.0.1', resolve))
    onTestFinished(() => new Promise<void>((resolve) => policy.close(() => resolve())))
    const { port } = policy.address() as AddressInfo
    const { run, session } = await serverWithSettings({
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              { type: 'http', url: `http://127.0.0.1:${port}/check`, headers: { 'x-policy': 'e2e' }, timeout: 10 },
            ],
          },
        ],
      },
    })
    // Read-only and inside the cwd, so it would run without the hook.
    const results = await run([bash('t1', 'echo hello')])
    expect(results).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: 'Permission to use Bash has been denied by a PreToolUse hook: the policy service says no',
        is_error: true,
      },
    ])
    expect(received).toHaveLength(1)
    expect(received[0]?.headers).toMatchObject({ 'content-type': 'application/json', 'x-policy': 'e2e' })
    expect(received[0]?.body).toMatchObject({
      hook_event_name: 'PreToolUse',
      session_id: session.session_id,
      cwd: session.cwd,
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command: 'echo hello' },
      tool_use_id: 't1',
    })
  })

  it('a hook allow never overrides a deny rule of the settings file', async () => {
    const { run, file } = await serverWithSettings({
      permissions: { deny: ['Bash(rm:*)'] },
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [commandHook(script('decide.sh', 'allow', 'cleanup is fine'))] }],
      },
    })
    await writeFile(file('keep.txt'), 'precious')
    const results = await run([bash('t1', 'rm -f keep.txt')])
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'Permission to use Bash has been denied.', is_error: true },
    ])
    expect(existsSync(file('keep.txt'))).toBe(true)
  })

  it('a hook ask becomes a permission.requested event an approver answers over the WebSocket', async () => {
    const { post, session, wsUrl } = await serverWithSettings({
      hooks: {
        PreToolUse: [{ matcher: 'Bash', hooks: [commandHook(script('decide.sh', 'ask', 'a human signs off'))] }],
      },
    })
    // Read-only and inside the cwd: without the hook it would run without asking.
    const response = await post('/v1/runs', {
      session_id: session.session_id,
      wait: false,
      tool_uses: [bash('t1', 'echo signed')],
    })
    const { events_url } = (await response.json()) as { events_url: string }
    const client = connect(`${wsUrl}${events_url}`)
    const asked = await client.until((frame) => ['permission.requested', 'run.completed'].includes(frame.type))
    expect(asked.type).toBe('permission.requested')
    expect(asked.message).toBe('Bash needs approval: a PreToolUse hook asked for it: a human signs off')
    client.send({ type: 'permission.response', request_id: asked.request_id, decision: 'allow' })
    await client.closed
    const results = client.received.filter((frame: Frame) => frame.type === 'tool.result')
    expect(results.map((frame) => frame.result)).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'signed' },
    ])
    expect(client.received.find((frame) => frame.type === 'permission.resolved')).toMatchObject({ decision: 'allow' })
  })
})
