// Pins secrets in hooks (docs/adr/0332, 0335): an HTTP hook's `${secret:NAME}` header is resolved
// at each send, an unknown secret fails the hook by name (so a PreToolUse hook fails closed), and
// command hooks never inherit TOOLEXEC_SECRET_KEY.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHookRunner } from '../../src/hooks/create-hook-runner.js'
import { UnknownSecretError } from '../../src/secrets/secret-errors.js'
import type { TestWorkspace } from '../helpers/tool-context.js'
import { bashTool, createWorkspace, makeContext } from '../permissions/permission-fixtures.js'

/** `${secret:NAME}` as the settings file spells it. */
const ref = (name: string) => `\${secret:${name}}`

let workspace: TestWorkspace
let server: Server
let url: string
const seen: string[] = []

beforeAll(async () => {
  workspace = await createWorkspace()
  server = createServer((request, response) => {
    seen.push(String(request.headers['x-token']))
    request.resume()
    request.on('end', () => response.writeHead(200).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
})
afterAll(async () => {
  await workspace.cleanup()
  await new Promise((resolve) => server.close(resolve))
})

const stored: Record<string, string> = { 'hook-token': 'first-value' }
const resolveSecret = async (name: string) => {
  const value = stored[name]
  if (value === undefined) throw new UnknownSecretError(name)
  return value
}

describe('secrets in hooks', () => {
  it('sends the current value of a referenced secret with each call', async () => {
    const runner = createHookRunner(
      {
        PreToolUse: [
          { matcher: 'Bash', hooks: [{ type: 'http', url, headers: { 'x-token': `T ${ref('hook-token')}` } }] },
        ],
      },
      { resolveSecret },
    )
    expect(await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toEqual({})
    stored['hook-token'] = 'second-value'
    expect(await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toEqual({})
    expect(seen).toEqual(['T first-value', 'T second-value'])
  })

  it('fails the hook, naming the secret, when it is not stored', async () => {
    const runner = createHookRunner(
      { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'http', url, headers: { 'x-token': `${ref('gone')}` } }] }] },
      { resolveSecret },
    )
    const before = seen.length
    const outcome = await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))
    expect(outcome).toMatchObject({
      permissionDecision: 'deny',
      permissionDecisionReason: expect.stringContaining('secret "gone" is not stored'),
    })
    expect(seen.length).toBe(before)
  })

  it('keeps TOOLEXEC_SECRET_KEY out of command hooks', async () => {
    const runner = createHookRunner(
      {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [{ type: 'command', command: 'cat >/dev/null; test -z "$TOOLEXEC_SECRET_KEY" || exit 2' }],
          },
        ],
      },
      { env: { ...process.env, TOOLEXEC_SECRET_KEY: 'k'.repeat(44) } },
    )
    expect(await runner.preToolUse(bashTool, { command: 'ls' }, makeContext(workspace))).toEqual({})
  })
})
