// Pins the client examples under examples/ that docs/clients.md shows: each runs against a listening
// server (the agent loop as a script, as a reader runs it), and every TypeScript snippet in the docs
// is one of these files, included verbatim (the typecheck compiles them).
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { runByPolling } from '../../examples/polling-client.js'
import { runBatch } from '../../examples/typed-client.js'
import { startTestServer } from '../helpers/start-test-server.js'
import { askingTool } from '../helpers/test-tools.js'

const root = new URL('../../', import.meta.url)
const read = (file: string) => readFileSync(new URL(file, root), 'utf8')

describe('client examples', () => {
  it('examples/agent-loop.ts runs as written and builds the next request from .message', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/agent-loop.ts'], {
      cwd: new URL('.', root).pathname,
      timeout: 20_000,
    })
    expect(JSON.parse(stdout)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01', content: 'hello from toolexec' },
        { type: 'tool_result', tool_use_id: 'toolu_02', content: 'No files found' },
      ],
    })
  })

  it('examples/typed-client.ts runs a batch', async () => {
    const { baseUrl } = await startTestServer()
    expect(await runBatch(baseUrl)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi' }],
    })
  })

  it('examples/polling-client.ts answers the asks it polls and gets the message', async () => {
    const { baseUrl } = await startTestServer({ extraTools: [askingTool] })
    const tool_uses = [
      { type: 'tool_use' as const, id: 'yes', name: 'Ask', input: { name: 'a' } },
      { type: 'tool_use' as const, id: 'no', name: 'Ask', input: { name: 'b' } },
    ]
    const message = await runByPolling(baseUrl, tool_uses, (ask) => ask.tool_use_id === 'yes')
    expect(message.content).toEqual([
      { type: 'tool_result', tool_use_id: 'yes', content: 'changed a' },
      { type: 'tool_result', tool_use_id: 'no', content: 'Not approved', is_error: true },
    ])
  })

  it('shows only TypeScript snippets that are example files, included verbatim', () => {
    const documents = [
      'README.md',
      ...readdirSync(new URL('docs/', root))
        .filter((file) => file.endsWith('.md'))
        .map((file) => `docs/${file}`),
    ]
    const snippets = documents.flatMap((file) =>
      [...read(file).matchAll(/(?:<!-- include: (\S+) -->\n)?```(?:ts|typescript)\n([\s\S]*?)```/g)].map((match) => ({
        file,
        include: match[1],
        code: match[2],
      })),
    )
    expect(snippets.length).toBeGreaterThanOrEqual(3)
    for (const { file, include, code } of snippets) {
      expect(include, `a TypeScript snippet in ${file} names no examples/ file`).toMatch(/^examples\//)
      expect(code, `${file} shows ${include} as it is`).toBe(read(include!))
    }
  })
})
