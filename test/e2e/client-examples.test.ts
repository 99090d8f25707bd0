// Pins the programs under examples/ that the docs show: each is run as a reader runs it (its own
// process, `npx tsx examples/NAME.ts` with TOOLEXEC_URL) against a listening server, talks to it
// over HTTP or WebSocket only, and prints what the docs say it shows.
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'

const root = new URL('../../', import.meta.url)

/** Runs one example against a fresh server; answers its stdout lines. */
async function runExample(name: string): Promise<string[]> {
  const { baseUrl } = await startTestServer()
  // Asynchronous: the server answering the example lives in this process.
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', `examples/${name}`], {
    cwd: new URL('.', root).pathname,
    env: { ...process.env, TOOLEXEC_URL: baseUrl },
    timeout: 30_000,
  })
  return stdout.trim().split('\n')
}

describe('the examples, run as programs', () => {
  it('agent-loop.ts builds the next Messages request from .message', async () => {
    const [line] = await runExample('agent-loop.ts')
    expect(JSON.parse(line!)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_01', content: 'hello from toolexec' },
        { type: 'tool_result', tool_use_id: 'toolu_02', content: 'No files found' },
      ],
    })
  })

  it('typed-client.ts runs a batch', async () => {
    const [line] = await runExample('typed-client.ts')
    expect(JSON.parse(line!)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'hi' }],
    })
  })

  it('polling-client.ts answers the asks it polls: the write allowed, the rm refused', async () => {
    const [line] = await runExample('polling-client.ts')
    expect(JSON.parse(line!)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'polling' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'written' },
        { type: 'tool_result', tool_use_id: 'toolu_3', content: 'Not approved', is_error: true },
      ],
    })
  })

  it('fetch-blob.ts shows the preview and fetches the whole output', async () => {
    const lines = await runExample('fetch-blob.ts')
    expect(lines).toEqual(['<persisted-output>', expect.stringMatching(/^toolu_big: \d+ bytes, last line 50000$/)])
  })

  it('follow-events.ts resumes after a drop and receives every event once, in order', async () => {
    const events = (await runExample('follow-events.ts')).map((line) => line.split(' '))
    expect(events.map(([seq]) => Number(seq))).toEqual(events.map((_, index) => index + 1))
    expect(events.filter(([, type]) => type === 'tool.result')).toHaveLength(2)
    expect(events.at(-1)?.[1]).toBe('run.completed')
  })

  it('stream-turn.ts streams a recorded turn and gets the results on the same socket', async () => {
    const [line] = await runExample('stream-turn.ts')
    expect(JSON.parse(line!)).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'streamed' }],
    })
  })

  it('imports nothing of the service: examples talk to it over the network', () => {
    for (const file of readdirSync(new URL('examples/', root))) {
      const imports = [...readFileSync(new URL(`examples/${file}`, root), 'utf8').matchAll(/from '([^']+)'/g)].map(
        (match) => match[1]!,
      )
      for (const source of imports) expect(source, `examples/${file}`).not.toMatch(/^\.\.\/(src|app|plugins|routes)\b/)
    }
  })
})
