// Pins the curl sessions in README.md and docs/api.md: run as written (bash, curl, jq) against a
// listening server, each creates a session, runs a batch and fetches the blob.
import { execFile, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { startTestServer } from '../helpers/start-test-server.js'

const sessionIn = (file: string) => {
  const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')
  return /<!-- curl-session -->\n```sh\n([\s\S]*?)```/.exec(text)?.[1]
}
const hasTools = ['curl', 'jq'].every((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0)

describe.each(['README.md', 'docs/api.md'])('%s', (file) => {
  it.skipIf(!hasTools)('has a curl session that works as written', async () => {
    const script = sessionIn(file)
    expect(script).toBeDefined()
    const { baseUrl, root } = await startTestServer()
    // Asynchronous: the server answering curl lives in this process.
    const result = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script!], {
      env: { ...process.env, BASE: baseUrl },
      cwd: root,
      encoding: 'utf8',
      timeout: 15_000,
    })
    expect(result.stderr).toBe('')
    const lines = result.stdout.trim().split('\n')
    expect(JSON.parse(lines[0]!)).toMatchObject({
      tool_use_id: 'toolu_1',
      preview: expect.stringMatching(/workspace\/demo$/),
    })
    expect(JSON.parse(lines[1]!).preview).toContain('<persisted-output>')
    expect(lines.slice(2)).toEqual(['19999', '20000'])
  })
})
