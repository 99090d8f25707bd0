/**
 * Takes the screenshots of docs/console.md (docs/console/*.png): a `node dist/server.js` with a
 * few runs, one waiting for an answer, in Debian's chromium. `npx tsx scripts/console-screenshots.ts`
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { REPOSITORY, startService } from '../bench/lib/server-process.js'
import { buildConsole } from './build-console.js'

const bash = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } })

await buildConsole(path.join(REPOSITORY, 'dist', 'console'))
const scratch = await mkdtemp(path.join(tmpdir(), 'toolexec-screenshots-'))
const service = await startService(scratch)
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
})
const post = async (url: string, body: unknown) =>
  (await (
    await fetch(`${service.url}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })
  ).json()) as Record<string, string>
try {
  const session = await post('/v1/sessions', {
    cwd: 'demo',
    permissions: { allow: ['Bash(git status)', 'Read'], ask: ['Bash'] },
  })
  await post('/v1/runs', { session_id: session.session_id, tool_uses: [bash('toolu_01', 'git status')] })
  await post('/v1/runs', {
    session_id: session.session_id,
    tool_uses: [{ type: 'tool_use', id: 'toolu_02', name: 'Read', input: { file_path: 'missing.txt' } }],
  })
  const waiting = await post('/v1/runs', {
    wait: false,
    session_id: session.session_id,
    tool_uses: [
      { type: 'tool_use', id: 'toolu_03', name: 'Glob', input: { pattern: '**/*.ts' } },
      bash('toolu_04', 'rm -rf build && npm run build'),
    ],
  })
  const page = await browser.newPage({ viewport: { width: 1280, height: 760 } })
  await page.goto(`${service.url}/console`)
  await page.locator('table.runs tbody tr').nth(2).waitFor()
  await page.screenshot({ path: path.join(REPOSITORY, 'docs/console/runs.png') })
  await page.goto(`${service.url}/console/runs/${waiting.run_id}`)
  await page.locator('.ask').waitFor()
  await page.screenshot({ path: path.join(REPOSITORY, 'docs/console/ask.png'), fullPage: true })
  await page.getByLabel('Message for the model (deny)').fill('Do not delete build/: run npm run build alone.')
  await page.getByRole('button', { name: 'Deny' }).click()
  await page.locator('[data-tool-use-id="toolu_04"] .result').waitFor()
  await page.screenshot({ path: path.join(REPOSITORY, 'docs/console/run.png'), fullPage: true })
  await page.goto(`${service.url}/console/audit`)
  await page.locator('table.audit tbody tr').first().waitFor()
  await page.screenshot({ path: path.join(REPOSITORY, 'docs/console/audit.png') })
} finally {
  await browser.close()
  await service.stop()
  await rm(scratch, { recursive: true, force: true })
}
