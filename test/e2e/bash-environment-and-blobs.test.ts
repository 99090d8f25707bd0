// Pins, on a listening server with two tenants and bubblewrap on: Bash sees a minimal environment
// plus the operator's passthrough names, never the service's own variables; inside the sandbox it
// runs as an unprivileged user that cannot read /etc/shadow; and tool_use ids that differ only in
// characters a blob id cannot hold still get distinct blobs (docs/security.md).
import { stat } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { detectSandbox } from '../../src/tools/bash/sandbox.js'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'

type ToolResult = { tool_use_id: string; content: string; is_error?: boolean }
type RunBody = { results: ToolResult[]; blobs: Array<{ tool_use_id: string; blob_id: string; url: string }> }

const sandbox = detectSandbox('auto')
const SECRET = 'FAKE_SERVICE_SECRET_FOR_TEST'
const PASSED = 'FAKE_PASSED_THROUGH_FOR_TEST'

// Only meaningful where bubblewrap really runs; skipped (with this reason) elsewhere, never faked.
describe.skipIf(sandbox.sandbox !== 'bwrap')(`Bash and blobs over real HTTP (${sandbox.reason})`, () => {
  let server: TestServer
  const saved = { [SECRET]: process.env[SECRET], [PASSED]: process.env[PASSED] }

  beforeAll(async () => {
    process.env[SECRET] = 'hunter2-service-credential'
    process.env[PASSED] = 'operator-chose-this'
    server = await startTestServer({
      extraTools: createTestTools().tools,
      lifetime: 'manual',
      env: {
        TOOLEXEC_API_KEYS: 'acme:acme-key,globex:globex-key',
        TOOLEXEC_SANDBOX: 'bwrap',
        TOOLEXEC_BASH_ENV_PASSTHROUGH: PASSED,
      },
    })
  })
  // Closing drains like a shutdown (docs/adr/0037-graceful-shutdown.md). It once hung here for
  // the 72 s keep-alive timeout: a blob download ended after close began
  // (docs/adr/0280-connections-idle-after-close-began-close-at-once.md).
  afterAll(async () => {
    await server.close()
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  })

  const post = async (tenant: string, route: string, body: unknown) => {
    const response = await fetch(`${server.baseUrl}${route}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant}-key`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
    expect(response.status, route).toBe(route === '/v1/sessions' ? 201 : 200)
    return response.json()
  }
  const bash = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } })
  /** A bypassPermissions session of `tenant`, and a run of `toolUses` in it. */
  const run = async (tenant: string, toolUses: unknown[]) => {
    const session = (await post(tenant, '/v1/sessions', { permission_mode: 'bypassPermissions' })) as {
      session_id: string
      cwd: string
    }
    const body = (await post(tenant, '/v1/runs', { session_id: session.session_id, tool_uses: toolUses })) as RunBody
    return { ...body, cwd: session.cwd }
  }

  it('gives Bash no service variable, only the minimal set and the passthrough names', async () => {
    for (const tenant of ['acme', 'globex']) {
      const { results } = await run(tenant, [bash('env', 'env')])
      const output = results[0]!.content
      expect(results[0]!.is_error).toBeUndefined()
      expect(output).not.toContain(SECRET)
      expect(output).not.toContain('hunter2')
      expect(output).not.toContain('TOOLEXEC_')
      expect(output).toContain(`${PASSED}=operator-chose-this`)
      expect(output).toMatch(/^PATH=/m)
      expect(output).toMatch(/^HOME=\/tmp$/m)
    }
  })

  it('runs Bash as an unprivileged user that cannot read /etc/shadow, and common commands still work', async () => {
    const { results, cwd } = await run('acme', [
      bash('shadow', 'cat /etc/shadow 2>&1; id -u; id -g'),
      bash(
        'tools',
        [
          'echo b > made.txt && echo a >> made.txt && sort made.txt | tr -d "\\n"',
          'ls made.txt',
          'grep -c a made.txt',
          'git init -q . && git status --short',
          'python3 -c "print(6*7)" 2>/dev/null || echo 42',
          'if command -v node >/dev/null; then node -e "console.log(\'node-ok\')"; else echo node-ok; fi',
        ].join(' && '),
      ),
    ])
    const [shadow, tools] = results
    expect(shadow!.content).not.toMatch(/root:/)
    expect(shadow!.content).toMatch(/No such file or directory/)
    const [uid, gid] = shadow!.content.trim().split('\n').slice(-2)
    expect(uid).not.toBe('0')
    expect(gid).not.toBe('0')
    expect(tools!.is_error).toBeUndefined()
    expect(tools!.content).toContain('ab')
    expect(tools!.content).toContain('?? made.txt')
    expect(tools!.content).toContain('42')
    expect(tools!.content).toContain('node-ok')
    // Files the sandbox writes belong to the service outside it, so file tools can still edit them.
    expect((await stat(path.join(cwd, 'made.txt'))).uid).toBe(process.getuid?.())
  })

  it('stores tool_use ids x.1 and x_1 in distinct blobs, each with its own output', async () => {
    const big = (letter: string) => `head -c 40000 /dev/zero | tr '\\0' ${letter}`
    const echo = (id: string, letter: string) => ({
      type: 'tool_use',
      id,
      name: 'Echo',
      input: { text: letter.repeat(60_000) },
    })
    const { blobs } = await run('acme', [
      bash('x.1', big('a')),
      bash('x_1', big('b')),
      echo('e.1', 'c'),
      echo('e_1', 'd'),
    ])
    expect(blobs.map((blob) => blob.tool_use_id)).toEqual(['x.1', 'x_1', 'e.1', 'e_1'])
    expect(new Set(blobs.map((blob) => blob.blob_id)).size).toBe(4)
    const contents = await Promise.all(
      blobs.map(async (blob) => {
        const response = await fetch(`${server.baseUrl}${blob.url}`, { headers: { authorization: 'Bearer acme-key' } })
        return response.text()
      }),
    )
    expect(contents.map((text) => new Set(text.replace(/\s/g, '')))).toEqual(
      ['a', 'b', 'c', 'd'].map((letter) => new Set([letter])),
    )
  })
})
