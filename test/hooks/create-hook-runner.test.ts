// Pins hooks end to end with real `sh` scripts and a real HTTP server: answers, blocks, timeouts, combining.
import { readFileSync } from 'node:fs'
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createHookRunner } from '../../src/hooks/create-hook-runner.js'
import type { HooksConfig } from '../../src/hooks/hooks-config-schema.js'
import { SILENT_LOGGER } from '../../src/logging/logger.js'
import { createPermissionGate } from '../../src/permissions/create-permission-gate.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'
import type { TestWorkspace } from '../helpers/tool-context.js'
import { bashTool, createWorkspace, makeContext, mcpTool } from '../permissions/permission-fixtures.js'

let workspace: TestWorkspace
let scripts: string
beforeAll(async () => {
  workspace = await createWorkspace()
  scripts = await mkdtemp(path.join(os.tmpdir(), 'toolexec-hooks-'))
})
afterAll(async () => {
  await workspace.cleanup()
  await rm(scripts, { recursive: true, force: true })
})

let counter = 0
/** Writes an executable sh script and returns its path. */
async function script(body: string): Promise<string> {
  counter += 1
  const file = path.join(scripts, `hook-${counter}.sh`)
  await writeFile(file, `#!/bin/sh\n${body}\n`)
  await chmod(file, 0o755)
  return file
}

const command = (file: string, timeout?: number, onError?: 'allow' | 'deny') => ({
  type: 'command' as const,
  command: file,
  ...(timeout ? { timeout } : {}),
  ...(onError ? { onError } : {}),
})
const FAILED_CLOSED = expect.stringContaining('denies the call (fail-closed)')
const pre = (...hooks: ReturnType<typeof command>[]): HooksConfig => ({ PreToolUse: [{ matcher: 'Bash', hooks }] })
const json = (value: unknown) => `cat > /dev/null\necho '${JSON.stringify(value)}'`
const deny = (reason: string) =>
  json({
    hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
  })
const allow = (updatedInput?: object) =>
  json({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: 'allow',
      ...(updatedInput ? { updatedInput } : {}),
    },
  })

function logger() {
  return { ...SILENT_LOGGER, warn: vi.fn<(details: object, message?: string) => void>() }
}

/** Running, not merely a zombie waiting for a slow init to reap it. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z'
  } catch {
    return true
  }
}

describe('command hooks', () => {
  it('get the event JSON on stdin, in the session cwd', async () => {
    const out = path.join(scripts, 'event.json')
    const runner = createHookRunner(pre(command(await script(`cat > ${out}\npwd >> ${out}.cwd`))))
    expect(await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toEqual({})
    expect(JSON.parse(await readFile(out, 'utf8'))).toEqual({
      hook_event_name: 'PreToolUse',
      session_id: 'session-1',
      cwd: workspace.cwd,
      permission_mode: 'default',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_1',
    })
    expect((await readFile(`${out}.cwd`, 'utf8')).trim()).toBe(workspace.cwd)
  })

  it('exit 2 blocks with stderr as the reason', async () => {
    const runner = createHookRunner(pre(command(await script('echo "no rm here" >&2\nexit 2'))))
    expect(await runner.preToolUse(bashTool, { command: 'rm x' }, makeContext(workspace))).toEqual({
      blockingReason: 'no rm here',
    })
  })

  it('a JSON deny is a deny with its reason', async () => {
    const runner = createHookRunner(pre(command(await script(deny('policy 7')))))
    expect(await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toEqual({
      permissionDecision: 'deny',
      permissionDecisionReason: 'policy 7',
    })
  })

  it('the legacy decision "block" is a deny too', async () => {
    const runner = createHookRunner(pre(command(await script(json({ decision: 'block', reason: 'legacy' })))))
    expect(await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toEqual({
      permissionDecision: 'deny',
      permissionDecisionReason: 'legacy',
    })
  })

  it('rewrites the input with an allow', async () => {
    const runner = createHookRunner(pre(command(await script(allow({ command: 'ls -la' })))))
    expect(await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toEqual({
      permissionDecision: 'allow',
      updatedInput: { command: 'ls -la' },
    })
  })

  it('takes updatedInput from the last allow hook in config order', async () => {
    const first = command(await script(allow({ command: 'first' })))
    const second = command(await script(allow({ command: 'second' })))
    const outcome = await createHookRunner(pre(first, second)).preToolUse(
      bashTool,
      { command: 'ls' },
      makeContext(workspace),
    )
    expect(outcome.updatedInput).toEqual({ command: 'second' })
  })

  it('two hooks disagreeing: deny wins and no input is rewritten', async () => {
    const hooks = pre(command(await script(allow({ command: 'ls' })), 5), command(await script(deny('not today'))))
    expect(await createHookRunner(hooks).preToolUse(bashTool, { command: 'rm x' }, makeContext(workspace))).toEqual({
      permissionDecision: 'deny',
      permissionDecisionReason: 'not today',
    })
  })

  it('ask beats allow', async () => {
    const ask = json({ hookSpecificOutput: { permissionDecision: 'ask', permissionDecisionReason: 'check' } })
    const hooks = pre(command(await script(allow())), command(await script(ask)))
    expect(await createHookRunner(hooks).preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toMatchObject(
      {
        permissionDecision: 'ask',
        permissionDecisionReason: 'check',
      },
    )
  })

  it('continue: false stops the call with stopReason', async () => {
    const runner = createHookRunner(pre(command(await script(json({ continue: false, stopReason: 'maintenance' })))))
    expect(await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toEqual({
      blockingReason: 'maintenance',
    })
  })

  it('other exit codes and bad JSON deny the call by default (fail-closed)', async () => {
    const hooks = pre(command(await script('echo oops >&2\nexit 1')))
    const outcome = await createHookRunner(hooks, { logger: logger() }).preToolUse(
      bashTool,
      { command: 'ls' },
      makeContext(workspace),
    )
    expect(outcome).toEqual({ permissionDecision: 'deny', permissionDecisionReason: FAILED_CLOSED })
    expect(outcome.permissionDecisionReason).toContain('exited with code 1: oops')
  })

  it('with onError allow, other exit codes and bad JSON are logged and ignored', async () => {
    const log = logger()
    const hooks = pre(
      command(await script('echo oops >&2\nexit 1'), undefined, 'allow'),
      command(await script('echo "{not json"'), undefined, 'allow'),
    )
    expect(
      await createHookRunner(hooks, { logger: log }).preToolUse(bashTool, { command: 'ls' }, makeContext(workspace)),
    ).toEqual({})
    const errors = log.warn.mock.calls.map(([details]) => (details as { error: string }).error)
    expect(errors).toEqual(['exited with code 1: oops', expect.stringContaining('printed invalid JSON')])
  })

  it('kills a hung hook and its children at the timeout, and denies the call', async () => {
    const pidFile = path.join(scripts, 'child.pid')
    const hung = await script(`sleep 30 &\necho $! > ${pidFile}\nwait`)
    const log = logger()
    const runner = createHookRunner(pre(command(hung, 0.3)), { logger: log })
    const outcome = await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))
    expect(outcome).toEqual({ permissionDecision: 'deny', permissionDecisionReason: FAILED_CLOSED })
    expect(outcome.permissionDecisionReason).toContain('timed out after 300 ms')
    expect(log.warn.mock.calls[0]?.[0]).toMatchObject({ error: 'timed out after 300 ms and was killed' })
    const child = Number((await readFile(pidFile, 'utf8')).trim())
    await vi.waitFor(() => expect(isAlive(child)).toBe(false), { timeout: 5000, interval: 20 })
  })

  it('a cancelled call kills its hooks', async () => {
    const controller = new AbortController()
    const runner = createHookRunner(pre(command(await script('sleep 30'), undefined, 'allow')), { logger: logger() })
    const pending = runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace, undefined, controller.signal))
    controller.abort()
    expect(await pending).toEqual({})
  })

  it('runs only hooks whose matcher fits the tool name', async () => {
    const blocker = command(await script('echo blocked >&2\nexit 2'))
    const config: HooksConfig = {
      PreToolUse: [
        { matcher: 'Edit|Write', hooks: [blocker] },
        { matcher: 'mcp__srv__.*', hooks: [blocker] },
      ],
    }
    const runner = createHookRunner(config)
    expect(await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toEqual({})
    expect(await runner.preToolUse(mcpTool('mcp__srv__q'), {}, makeContext(workspace))).toEqual({
      blockingReason: 'blocked',
    })
  })
})

describe('PostToolUse and PostToolUseFailure', () => {
  it('get the response or the error, and concatenate additionalContext in config order', async () => {
    const out = path.join(scripts, 'post.json')
    const context = (text: string) =>
      json({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: text } })
    const config: HooksConfig = {
      PostToolUse: [
        {
          matcher: '*',
          hooks: [command(await script(`cat > ${out}\necho '{}'`)), command(await script(context('one')))],
        },
        { hooks: [command(await script(context('two')))] },
      ],
      PostToolUseFailure: [{ matcher: '', hooks: [command(await script(`cat > ${out}.failure`))] }],
    }
    const runner = createHookRunner(config)
    const outcome = await runner.postToolUse(bashTool, { command: 'ls' }, 'a\nb', makeContext(workspace))
    expect(outcome).toEqual({ additionalContext: ['one', 'two'] })
    expect(JSON.parse(await readFile(out, 'utf8'))).toMatchObject({
      hook_event_name: 'PostToolUse',
      tool_response: 'a\nb',
    })
    expect(await runner.postToolUseFailure(bashTool, { command: 'ls' }, 'Exit code 1', makeContext(workspace))).toEqual(
      {},
    )
    expect(JSON.parse(await readFile(`${out}.failure`, 'utf8'))).toMatchObject({
      hook_event_name: 'PostToolUseFailure',
      error: 'Exit code 1',
    })
  })

  it('a PostToolUse block reports its reason', async () => {
    const config: HooksConfig = {
      PostToolUse: [{ hooks: [command(await script(json({ decision: 'block', reason: 'leaked a key' })))] }],
    }
    expect(await createHookRunner(config).postToolUse(bashTool, {}, 'x', makeContext(workspace))).toEqual({
      blockingReason: 'leaked a key',
    })
  })
})

describe('HTTP hooks', () => {
  let server: Server
  let url: string
  const seen: { body: unknown; headers: IncomingHttpHeaders }[] = []
  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk) => {
        body += chunk
      })
      request.on('end', () => {
        seen.push({ body: JSON.parse(body), headers: request.headers })
        if (request.url === '/fail') {
          response.writeHead(500).end()
          return
        }
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(
          JSON.stringify({
            hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'remote policy' },
          }),
        )
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('POST the event JSON with interpolated headers and read the answer', async () => {
    const config: HooksConfig = {
      PreToolUse: [
        {
          matcher: 'Bash',
          hooks: [
            {
              type: 'http',
              url: `${url}/hook`,
              headers: { authorization: 'Bearer $TOKEN', 'x-other': '$SECRET' },
              allowedEnvVars: ['TOKEN'],
            },
          ],
        },
      ],
    }
    const runner = createHookRunner(config, { env: { TOKEN: 't0k', SECRET: 'hidden' } })
    expect(await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toEqual({
      permissionDecision: 'deny',
      permissionDecisionReason: 'remote policy',
    })
    const last = seen[seen.length - 1]
    expect(last?.body).toMatchObject({
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
    })
    expect(last?.headers.authorization).toBe('Bearer t0k')
    expect(last?.headers['x-other']).toBe('$SECRET')
  })

  it('a failing status denies by default', async () => {
    const config: HooksConfig = { PreToolUse: [{ hooks: [{ type: 'http', url: `${url}/fail` }] }] }
    expect(
      await createHookRunner(config, { logger: logger() }).preToolUse(bashTool, {}, makeContext(workspace)),
    ).toEqual({ permissionDecision: 'deny', permissionDecisionReason: FAILED_CLOSED })
  })

  it('with onError allow, a failing status is a non-blocking error', async () => {
    const log = logger()
    const config: HooksConfig = {
      PreToolUse: [{ hooks: [{ type: 'http', url: `${url}/fail`, onError: 'allow' }] }],
    }
    expect(await createHookRunner(config, { logger: log }).preToolUse(bashTool, {}, makeContext(workspace))).toEqual({})
    expect(log.warn.mock.calls[0]?.[0]).toMatchObject({ error: 'answered HTTP 500' })
  })
})

describe('hooks and rules together', () => {
  it('a hook allow does not beat an operator deny rule', async () => {
    const runner = createHookRunner(pre(command(await script(allow()))))
    const permissionContext = createPermissionContext({ alwaysDenyRules: { operatorSettings: ['Bash(rm:*)'] } })
    const context = makeContext(workspace, permissionContext)
    const input = { command: 'rm -rf build' }
    const hookOutcome = await runner.preToolUse(bashTool, input, context)
    expect(hookOutcome.permissionDecision).toBe('allow')
    const decision = await createPermissionGate({ timeoutMs: 10 }).decide({
      tool: bashTool,
      input,
      context,
      hookOutcome,
    })
    expect(decision).toMatchObject({ behavior: 'deny', message: 'Permission to use Bash has been denied.' })
  })
})
