// Pins every fenced block of README.md and docs/*.md: each carries a tag on the line before it
// saying how it is checked, and each tag's check runs the snippet (or produces the output it
// shows) against a listening server, the settings loader, or the process. A block without a tag,
// or with a tag no check knows, fails here: a new snippet cannot go unchecked.
import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { parseSettings } from '../../src/config/settings-schema.js'
import { HookOutputSchema } from '../../src/hooks/hook-output.js'
import { McpServersSchema } from '../../src/mcp/client/mcp-settings-schema.js'
import { ControlFrameSchema } from '../../src/runs/control/control-frame.js'
import { startGatedRun } from '../helpers/gated-run.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { createTestTools } from '../helpers/test-tools.js'
import { connect } from '../helpers/ws-client.js'

const root = new URL('../../', import.meta.url)
const rootPath = root.pathname
const read = (file: string) => readFileSync(new URL(file, root), 'utf8')
const run = promisify(execFile)

type Snippet = { file: string; line: number; tag: string; code: string }

/** Every fenced block, with the tag comment on the line before it. */
function snippets(): Snippet[] {
  const documents = [
    'README.md',
    ...readdirSync(new URL('docs/', root))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ]
  return documents.flatMap((file) => {
    const lines = read(file).split('\n')
    const found: Snippet[] = []
    for (let index = 0; index < lines.length; index++) {
      if (!lines[index]!.startsWith('```')) continue
      const end = lines.findIndex((line, at) => at > index && line.startsWith('```'))
      const tag = /^<!-- (.+?) -->$/.exec(lines[index - 1] ?? '')?.[1] ?? ''
      found.push({ file, line: index + 1, tag, code: lines.slice(index + 1, end).join('\n') })
      index = end
    }
    return found
  })
}

const all = snippets()
const tagged = (kind: string) => all.filter((snippet) => snippet.tag.split(/[:\s]/)[0] === kind)
const where = (snippet: Snippet) => `${snippet.file}:${snippet.line}`

/** `…` in shown text stands for anything on its line (ids, paths, times); a line of `…` alone, for any lines. */
function shownPattern(shown: string): RegExp {
  const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const lines = shown
    .split('\n')
    .map((line) => (line === '…' ? '[^]*?' : line.split('…').map(literal).join('[^\\n]*?')))
  return new RegExp(`^${lines.join('\\n')}$`)
}

/** Every key the docs show is in the actual value, at every depth (arrays: element by element). */
function expectShape(shown: unknown, actual: unknown, at: string): void {
  if (Array.isArray(shown)) {
    expect(Array.isArray(actual), `${at} is an array`).toBe(true)
    for (const [index, item] of shown.entries()) expectShape(item, (actual as unknown[])[index], `${at}[${index}]`)
  } else if (shown !== null && typeof shown === 'object') {
    expect(actual, `${at} is an object`).toBeTypeOf('object')
    for (const [key, value] of Object.entries(shown)) {
      expect(actual, `${at}.${key} exists`).toHaveProperty([key])
      expectShape(value, (actual as Record<string, unknown>)[key], `${at}.${key}`)
    }
  }
}

const KINDS = [
  'curl-session',
  'include',
  'commands',
  'run',
  'request',
  'response',
  'problem',
  'sse-record',
  'client-frames',
  'error-frame',
  'settings',
  'settings-error',
  'config-error',
  'hook',
  'hook-input',
  'hook-output',
  'hook-script',
  'persisted-output',
  'blob-layout',
  'messages-request',
]

describe('the snippets of README.md and docs/', () => {
  it('tags every block with a kind this test checks', () => {
    expect(all.length).toBeGreaterThan(30)
    for (const snippet of all)
      expect(KINDS, `${where(snippet)}: tag "${snippet.tag}"`).toContain(snippet.tag.split(/[:\s]/)[0])
  })

  it('runs the curl sessions elsewhere: test/e2e/docs-curl.test.ts and the deployed chain', () => {
    expect(tagged('curl-session').map((snippet) => snippet.file)).toEqual(['README.md', 'docs/api.md'])
    expect(read('test/e2e/docs-curl.test.ts')).toContain("describe.each(['README.md', 'docs/api.md'])")
  })

  it('shows each included example as the file is (npx tsx scripts/doc-includes.ts refreshes them)', () => {
    expect(tagged('include').length).toBeGreaterThanOrEqual(6)
    for (const snippet of tagged('include')) {
      const file = snippet.tag.slice('include: '.length)
      expect(file, where(snippet)).toMatch(/^examples\//)
      expect(`${snippet.code}\n`, `${where(snippet)} is a stale copy of ${file}`).toBe(read(file))
    }
  })

  it('names only npm scripts and files that exist in the commands it shows', () => {
    const scripts = Object.keys(JSON.parse(read('package.json')).scripts as Record<string, string>)
    for (const snippet of tagged('commands')) {
      for (const [, script] of snippet.code.matchAll(/npm (?:run )?([a-z:]+)/g)) {
        expect(['ci', ...scripts], where(snippet)).toContain(script)
      }
      if (snippet.code.includes('docker build')) expect(read('Dockerfile')).toContain('FROM')
      if (snippet.code.includes('docker compose')) expect(read('docker-compose.yml')).toContain('TOOLEXEC_API_KEYS')
    }
    // The README's test command is what CI runs.
    expect(read('.ci/run')).toMatch(/^npm ci\nnpm test$/m)
  })

  it('runs each shell snippet of a document in one shell, in order, and prints what it shows', async () => {
    const files = [...new Set(tagged('run').map((snippet) => snippet.file))]
    for (const file of files) {
      const blocks = tagged('run').filter((snippet) => snippet.file === file)
      const { baseUrl, root: serverRoot } = await startTestServer({
        settings: { clientTools: { textEditorMaxCharacters: 20_000 } },
      })
      const cwd = mkdtempSync(path.join(tmpdir(), 'toolexec-snippet-'))
      // npx finds openapi-typescript installed in the project, as in a reader's project.
      symlinkSync(`${rootPath}node_modules`, path.join(cwd, 'node_modules'))
      for (const block of blocks) {
        const fixture = /^run with: (\S+)$/.exec(block.tag)?.[1]
        if (fixture) copyFileSync(new URL(fixture, root), path.join(cwd, path.basename(fixture)))
      }
      const script = blocks.map((block) => block.code).join('\n')
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
        cwd,
        env: { ...process.env, BASE: baseUrl },
        timeout: 60_000,
      })
      const shown = blocks.flatMap((block) =>
        block.code
          .split('\n')
          .filter((line) => /^# [[{]/.test(line))
          .map((line) => line.slice(2)),
      )
      // The JSON lines printed are compared with the `# {…}` lines shown; tools' own chatter is not.
      const printed = stdout.split('\n').filter((line) => /^[[{]/.test(line))
      expect(printed.length, `${file}: what the snippets print`).toBe(shown.length)
      for (const [index, line] of shown.entries()) {
        expect(printed[index], `${file}: output line ${index + 1}`).toMatch(shownPattern(line))
      }
      if (file === 'docs/clients.md')
        expect(readFileSync(path.join(cwd, 'openapi.d.ts'), 'utf8')).toContain('"/v1/runs"')
      expect(serverRoot).toBeTruthy()
    }
  }, 120_000)

  it('accepts each request body it shows', async () => {
    const { baseUrl } = await startTestServer()
    for (const snippet of tagged('request')) {
      const [, method, route] = /^request: (\w+) (\S+)$/.exec(snippet.tag)!
      const response = await fetch(`${baseUrl}${route}`, {
        method: method!,
        headers: { 'content-type': 'application/json' },
        body: snippet.code,
      })
      expect(response.status, `${where(snippet)}: ${await response.clone().text()}`).toBeLessThan(300)
    }
  })

  it('answers with every field its response example shows, and the problem it shows, word for word', async () => {
    const { baseUrl } = await startTestServer()
    const session = (await (await fetch(`${baseUrl}/v1/sessions`, { method: 'POST' })).json()) as { session_id: string }
    const batch = await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        session_id: session.session_id,
        tool_uses: [
          { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'pwd' } },
          { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'seq 1 20000' } },
        ],
      }),
    })
    const actual = await batch.json()
    for (const snippet of tagged('response')) expectShape(JSON.parse(snippet.code), actual, where(snippet))
    for (const snippet of tagged('problem')) {
      const route = snippet.tag.replace(/^problem: GET /, '')
      expect(await (await fetch(`${baseUrl}${route}`)).json(), where(snippet)).toEqual(JSON.parse(snippet.code))
    }
  })

  it('streams the SSE record it shows, and takes the client frames it shows', async () => {
    const { baseUrl } = await startTestServer()
    const started = (await (
      await fetch(`${baseUrl}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'echo hi' } }],
        }),
      })
    ).json()) as { run_id: string }
    const stream = await (
      await fetch(`${baseUrl}/v1/runs/${started.run_id}/events`, { headers: { accept: 'text/event-stream' } })
    ).text()
    const records = stream.split('\n\n').map((record) => record.split('\n'))
    for (const snippet of tagged('sse-record')) {
      const [idLine, eventLine, dataLine] = snippet.code.split('\n')
      const event = /^event: (.+)$/.exec(eventLine!)![1]
      const record = records.find((lines) => lines.includes(`event: ${event}`))
      expect(record, where(snippet)).toBeDefined()
      expect(record![0], where(snippet)).toMatch(/^id: \d+$/)
      expect(idLine).toMatch(/^id: \d+$/)
      const data = JSON.parse(record![2]!.replace(/^data: /, ''))
      expect(Object.keys(data).sort(), where(snippet)).toEqual(
        Object.keys(JSON.parse(dataLine!.replace(/^data: /, ''))).sort(),
      )
      expect(`id: ${data.seq}`).toBe(record![0])
    }
    for (const snippet of tagged('client-frames')) {
      for (const frame of snippet.code.split('\n')) {
        expect(ControlFrameSchema.safeParse(JSON.parse(frame)).success, `${where(snippet)}: ${frame}`).toBe(true)
      }
    }
  })

  it('answers an unknown permission request with the error frame it shows', async () => {
    const tools = createTestTools()
    const { baseUrl, wsUrl } = await startTestServer({ extraTools: tools.tools })
    const started = { run_id: await startGatedRun(baseUrl) }
    const socket = connect(`${wsUrl}/v1/runs/${started.run_id}/events`)
    await socket.opened
    await tools.started('g')
    for (const snippet of tagged('error-frame')) {
      const shown = JSON.parse(snippet.code) as { code: string; message: string }
      const requestId = /No open permission request (\S+)/.exec(shown.message)![1]
      socket.send({ type: 'permission.response', request_id: requestId, decision: 'allow' })
      const frame = await socket.until((received) => received.type === 'error')
      expect(frame.code, where(snippet)).toBe(shown.code)
      expect(frame.message, where(snippet)).toMatch(shownPattern(shown.message))
    }
    tools.open('g', 'done')
    await socket.closed
  })

  it('loads every settings file it shows, hooks and MCP servers included', () => {
    for (const snippet of tagged('settings')) {
      const value = JSON.parse(snippet.code) as { mcpServers?: unknown }
      expect(() => parseSettings(value, where(snippet)), where(snippet)).not.toThrow()
      if (value.mcpServers) expect(McpServersSchema.safeParse(value.mcpServers).success, where(snippet)).toBe(true)
    }
    for (const snippet of tagged('hook')) {
      const hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [JSON.parse(snippet.code)] }] }
      expect(() => parseSettings({ hooks }, where(snippet)), where(snippet)).not.toThrow()
    }
    for (const snippet of tagged('hook-output')) {
      const shown = JSON.parse(snippet.code) as Record<string, unknown>
      // The schema is loose (hooks written for Claude Code may send more): every key shown must be one it reads.
      expect(HookOutputSchema.strict().safeParse(shown).success, where(snippet)).toBe(true)
    }
  })

  it('prints the settings and configuration errors it shows', async () => {
    for (const snippet of tagged('settings-error')) {
      const [, file] = /^Invalid settings in (\S+):$/.exec(snippet.code.split('\n')[0]!)!
      const rule = /Invalid permission rule "([^"]+)"/.exec(snippet.code)![1]
      expect(() => parseSettings({ permissions: { deny: ['Bash(rm:*)', rule] } }, file), where(snippet)).toThrow(
        snippet.code,
      )
    }
    for (const snippet of tagged('config-error')) {
      const [, name, value] = /variable (\w+):.*\(got "([^"]+)"\)$/.exec(snippet.code)!
      const failed = await run(process.execPath, ['--import', 'tsx', 'server.ts'], {
        cwd: rootPath,
        env: { ...process.env, [name!]: value, LOG_LEVEL: 'silent' },
        timeout: 30_000,
      }).then(
        () => undefined,
        (error: { stderr: string; code: number }) => error,
      )
      expect(failed?.code, where(snippet)).toBe(1)
      expect(failed?.stderr.trim(), where(snippet)).toBe(snippet.code)
    }
  }, 40_000)

  it('sends hooks the input it shows, and the hook script it shows refuses what it says', async () => {
    const scratch = mkdtempSync(path.join(tmpdir(), 'toolexec-hook-'))
    const recorder = path.join(scratch, 'record.sh')
    writeFileSync(recorder, `#!/bin/sh\ncat > ${scratch}/input.json\n`, { mode: 0o755 })
    const [script] = tagged('hook-script')
    const refuser = path.join(scratch, 'refuse.sh')
    writeFileSync(refuser, `${script!.code}\n`, { mode: 0o755 })
    const { baseUrl } = await startTestServer({
      settings: {
        permissions: { allow: ['Bash(git push:*)'] },
        hooks: {
          PreToolUse: [
            {
              matcher: 'Bash',
              hooks: [
                { type: 'command', command: recorder },
                { type: 'command', command: refuser },
              ],
            },
          ],
        },
      },
    })
    const body = (await (
      await fetch(`${baseUrl}/v1/runs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          tool_uses: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'git push origin main' } }],
        }),
      })
    ).json()) as { results: Array<{ content: string; is_error?: boolean }> }
    expect(body.results[0], where(script!)).toMatchObject({ is_error: true })
    expect(body.results[0]!.content, where(script!)).toContain('pushing to main is not allowed; open a pull request')
    const received = JSON.parse(readFileSync(path.join(scratch, 'input.json'), 'utf8')) as Record<string, unknown>
    for (const snippet of tagged('hook-input')) {
      const shown = JSON.parse(snippet.code) as Record<string, unknown>
      expect(Object.keys(received).sort(), where(snippet)).toEqual(Object.keys(shown).sort())
      expect(received, where(snippet)).toMatchObject({
        hook_event_name: shown.hook_event_name,
        tool_name: shown.tool_name,
      })
    }
  })

  it('replaces a 30,050-byte output with the text it shows, in the blob layout it shows', async () => {
    const { baseUrl, config } = await startTestServer({
      env: { TOOLEXEC_API_KEYS: 'acme:key' },
      settings: { permissions: { allow: ['Bash'] } },
    })
    const lines = 'printf "first line of output\\nsecond line\\n"; head -c 30017 /dev/zero | tr "\\0" x'
    const response = await fetch(`${baseUrl}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer key' },
      body: JSON.stringify({
        tool_uses: [{ type: 'tool_use', id: 'toolu_01A', name: 'Bash', input: { command: lines } }],
      }),
    })
    const body = (await response.json()) as {
      results: Array<{ content: string }>
      blobs: Array<{ blob_id: string; size: number }>
    }
    expect(response.status, JSON.stringify(body)).toBe(200)
    expect(body.blobs[0]?.size, JSON.stringify(body).slice(0, 500)).toBe(30_050)
    const preview = body.results[0]!.content.replaceAll(config.blobDir, '/data/blobs')
    for (const snippet of tagged('persisted-output')) {
      // The shown preview's `…` line stands for the rest of the first 2 KB.
      expect(preview, where(snippet)).toMatch(shownPattern(snippet.code))
    }
    for (const snippet of tagged('blob-layout')) {
      expect(snippet.code, where(snippet)).toContain('<tenant>/')
      expect(preview).toContain(`/data/blobs/acme/${body.blobs[0]!.blob_id}`)
      expect(body.blobs[0]!.blob_id).toMatch(/^run_[^/]+-toolu_01A\.txt$/)
    }
  })

  it('sends the Messages API the tools GET /v1/tools lists for the session it shows', async () => {
    const { baseUrl } = await startTestServer({ settings: { clientTools: { textEditorMaxCharacters: 20_000 } } })
    const session = (await (
      await fetch(`${baseUrl}/v1/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ toolsets: ['anthropic_client'] }),
      })
    ).json()) as { session_id: string }
    const listed = (await (await fetch(`${baseUrl}/v1/tools?session_id=${session.session_id}`)).json()) as {
      tools: unknown[]
    }
    for (const snippet of tagged('messages-request')) {
      const request = JSON.parse(snippet.code) as { tools: unknown[] }
      expect(request.tools, where(snippet)).toEqual(expect.arrayContaining(listed.tools))
      expect(request.tools).toHaveLength(listed.tools.length)
    }
  })
})
