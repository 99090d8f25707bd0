// Pins the console (docs/console.md) in Debian's chromium driven by Playwright against listening
// servers: a run with an ask appears live and Allow runs it; Deny with a message is the result;
// an edited input is what runs (and invalid JSON is refused before sending); Cancel kills a
// running `sleep 30`; a reload mid-run resumes with every event once; one tenant's key never shows
// another's runs; a page of a foreign origin cannot drive the service; axe-core finds no serious
// violation on the main views.
import { randomUUID } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { AxeBuilder } from '@axe-core/playwright'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { browserSkipReason, launchBrowser } from '../helpers/browser.js'
import { builtConsole } from '../helpers/console-build.js'
import { startTestServer, type TestServer } from '../helpers/start-test-server.js'
import type { WireJson } from '../helpers/wire-json.js'

const ADMIN = 'admin-secret'
const RUNNER = 'runner-secret'
const GLOBEX = 'globex-secret'

async function call(server: TestServer, key: string | undefined, method: string, url: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}${url}`, {
    method,
    headers: {
      ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, body: (text === '' ? {} : JSON.parse(text)) as WireJson }
}

async function startRun(server: TestServer, key: string | undefined, permissions: WireJson, toolUses: WireJson[]) {
  const session = await call(server, key, 'POST', '/v1/sessions', { permissions })
  expect(session.status).toBe(201)
  const run = await call(server, key, 'POST', '/v1/runs', {
    wait: false,
    session_id: session.body.session_id,
    tool_uses: toolUses,
  })
  expect(run.status).toBe(202)
  return run.body.run_id as string
}

const bash = (id: string, command: string) => ({ type: 'tool_use', id, name: 'Bash', input: { command } })

async function runView(server: TestServer, key: string | undefined, runId: string) {
  return (await call(server, key, 'GET', `/v1/runs/${runId}`)).body
}

async function finished(server: TestServer, key: string | undefined, runId: string) {
  let view: WireJson = {}
  await vi.waitFor(
    async () => {
      view = await runView(server, key, runId)
      expect(view.status).not.toBe('running')
    },
    { timeout: 15_000, interval: 50 },
  )
  return view
}

/** Pids of processes whose command line contains `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)
      } catch {
        return false
      }
    })
    .map(Number)
}

async function seriousViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze()
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)
}

describe.skipIf(browserSkipReason !== undefined)('the console in a real browser', () => {
  let browser: Browser
  let server: TestServer
  let context: BrowserContext
  let page: Page

  beforeAll(async () => {
    const consoleDirectory = await builtConsole()
    browser = await launchBrowser()
    server = await startTestServer({
      lifetime: 'manual',
      consoleDirectory,
      env: { TOOLEXEC_API_KEYS: `ops=acme:admin:${ADMIN},ci=acme:runner:${RUNNER}` },
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  /** A fresh tab (its own sessionStorage) that has entered `key` in the key form. */
  async function openConsole(path = '/console', key = ADMIN) {
    await context?.close()
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
    // A step that cannot happen fails in seconds with what it waited for, not at the test's timeout.
    context.setDefaultTimeout(10_000)
    page = await context.newPage()
    await page.goto(`${server.baseUrl}${path}`)
    await page.getByLabel('API key').fill(key)
    await page.getByRole('button', { name: 'Open the console' }).click()
    return page
  }

  it('shows a run with an ask live; Allow runs the call and its result appears', async () => {
    await openConsole()
    await expect.poll(() => page.locator('.summary').textContent()).toContain('runs shown')
    const runId = await startRun(server, RUNNER, { ask: ['Bash'] }, [bash('toolu_1', 'echo allowed-by-a-person')])
    // No reload: the list refreshes itself, and the waiting run comes first.
    const row = page.locator(`tr[data-run-id="${runId}"]`)
    await row.waitFor({ timeout: 10_000 })
    expect(await page.locator('tbody tr').first().getAttribute('data-run-id')).toBe(runId)
    await row.getByRole('link', { name: 'Bash' }).click()
    await page.getByRole('button', { name: 'Allow', exact: true }).click()
    await page.locator('[data-tool-use-id="toolu_1"] .result').getByText('allowed-by-a-person').waitFor()
    const view = await finished(server, RUNNER, runId)
    expect(view.results[0]).toMatchObject({ content: 'allowed-by-a-person' })
    expect(view.resolved_permissions[0]).toMatchObject({ decision: 'allow', answered_by: 'ops' })
    await page.locator('.resolved').getByText('by key “ops”').waitFor()
  })

  it('opens an ask by its own URL; Deny with a message gives that text as the tool_result', async () => {
    const runId = await startRun(server, RUNNER, { ask: ['Bash'] }, [bash('toolu_1', 'echo never-runs')])
    let requestId = ''
    await vi.waitFor(async () => {
      requestId = (await runView(server, RUNNER, runId)).permission_requests[0].request_id
    })
    await openConsole(`/console/runs/${runId}/asks/${requestId}`)
    const ask = page.locator(`.ask[data-request-id="${requestId}"]`)
    await ask.waitFor()
    expect(await ask.evaluate((element) => element === element.ownerDocument.activeElement)).toBe(true)
    await ask.getByLabel('Message for the model (deny)').fill('Not on a Friday: open a ticket instead.')
    await ask.getByRole('button', { name: 'Deny' }).click()
    const view = await finished(server, RUNNER, runId)
    expect(view.results[0].is_error).toBe(true)
    expect(view.results[0].content).toContain('Not on a Friday: open a ticket instead.')
    await page.locator('[data-tool-use-id="toolu_1"] .result').getByText('Not on a Friday').waitFor()
  })

  it('runs the input as edited, after refusing an edit that is not a JSON object', async () => {
    const runId = await startRun(server, RUNNER, { ask: ['Bash'] }, [bash('toolu_1', 'echo original')])
    await openConsole(`/console/runs/${runId}`)
    const input = page.getByLabel('Input to run (JSON)')
    await input.fill('{"command": "echo edited"')
    await page.getByRole('button', { name: 'Allow with edited input' }).click()
    await page.getByRole('alert').getByText('not valid JSON').waitFor()
    await input.fill('["echo edited"]')
    await page.getByRole('button', { name: 'Allow with edited input' }).click()
    await page.getByRole('alert').getByText('must be a JSON object').waitFor()
    // Nothing was sent: the ask is still open.
    expect((await runView(server, RUNNER, runId)).permission_requests).toHaveLength(1)
    await input.fill('{"command": "echo edited"}')
    await page.getByRole('button', { name: 'Allow with edited input' }).click()
    const view = await finished(server, RUNNER, runId)
    expect(view.results[0]).toMatchObject({ content: 'edited' })
    await page.locator('[data-tool-use-id="toolu_1"] .result').getByText('edited').waitFor()
  })

  it('cancels a running sleep 30: the process is gone and the run says cancelled', async () => {
    const marker = `console-sleep-${randomUUID()}`
    const runId = await startRun(server, RUNNER, { allow: ['Bash'] }, [bash('toolu_1', `exec -a ${marker} sleep 30`)])
    await vi.waitFor(() => expect(processesWith(marker).length).toBeGreaterThan(0), { timeout: 10_000 })
    await openConsole(`/console/runs/${runId}`)
    await page.locator('[data-tool-use-id="toolu_1"].call-running').waitFor()
    await page.getByRole('button', { name: 'Cancel run' }).click()
    const view = await finished(server, RUNNER, runId)
    expect(view.status).toBe('cancelled')
    expect(processesWith(marker)).toEqual([])
    await page.locator('h1 .badge-cancelled').waitFor()
  })

  it('resumes after a reload in the middle of a run with every event exactly once', async () => {
    const lines = 'for i in $(seq 1 30); do echo line-$i; sleep 0.05; done'
    const runId = await startRun(server, RUNNER, { allow: ['Bash'] }, [
      bash('toolu_1', lines),
      bash('toolu_2', 'echo after'),
    ])
    await openConsole(`/console/runs/${runId}`)
    await page.locator('[data-tool-use-id="toolu_1"] .output').getByText('line-3', { exact: false }).waitFor()
    await page.reload()
    await page.locator('[data-tool-use-id="toolu_2"] .result').getByText('after').waitFor()
    await page.getByText('Finished: every event received').waitFor()
    const main = page.locator('main')
    const events = await fetch(`${server.baseUrl}/v1/runs/${runId}/events`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${RUNNER}` },
    }).then((response) => response.text())
    const count = events.split('\n').filter((line) => line.startsWith('id: ')).length
    expect(Number(await main.getAttribute('data-applied'))).toBe(count)
    expect(Number(await main.getAttribute('data-last-seq'))).toBe(count)
    expect(await main.getAttribute('data-gaps')).toBe('0')
    expect(await main.getAttribute('data-duplicates')).toBe('0')
    const result = await page.locator('[data-tool-use-id="toolu_1"] .result').textContent()
    for (let line = 1; line <= 30; line++) expect(result).toMatch(new RegExp(`line-${line}(\n|$)`))
  })

  it('resumes a dropped event stream after the last event it applied, with nothing twice', async () => {
    const runId = await startRun(server, RUNNER, { allow: ['Bash'] }, [
      bash('toolu_1', 'echo one'),
      bash('toolu_2', 'echo two'),
    ])
    await finished(server, RUNNER, runId)
    const full = await fetch(`${server.baseUrl}/v1/runs/${runId}/events`, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${RUNNER}` },
    }).then((response) => response.text())
    const records = full.split('\n\n').filter((record) => record.includes('\ndata: '))
    await openConsole('/console')
    // The first stream ends after three events, as a dropped connection would; the rest is real.
    const asked: string[] = []
    await page.route(`**/v1/runs/${runId}/events?**`, async (route) => {
      asked.push(new URL(route.request().url()).searchParams.get('after') ?? '')
      if (asked.length > 1) return route.continue()
      await route.fulfill({
        status: 200,
        headers: { 'content-type': 'text/event-stream' },
        body: `${records.slice(0, 3).join('\n\n')}\n\n`,
      })
    })
    await page.goto(`${server.baseUrl}/console/runs/${runId}`)
    await page.getByText('Finished: every event received').waitFor()
    expect(asked).toEqual(['0', '3'])
    const main = page.locator('main')
    expect(Number(await main.getAttribute('data-applied'))).toBe(records.length)
    expect(await main.getAttribute('data-gaps')).toBe('0')
    expect(await main.getAttribute('data-duplicates')).toBe('0')
    await page.locator('[data-tool-use-id="toolu_2"] .result').getByText('two').waitFor()
  })

  it('opens a persisted output in place and downloads it whole', async () => {
    const runId = await startRun(server, RUNNER, { allow: ['Bash'] }, [bash('toolu_1', 'seq 1 20000')])
    await finished(server, RUNNER, runId)
    await openConsole(`/console/runs/${runId}`)
    const result = page.locator('[data-tool-use-id="toolu_1"] .result')
    await result.getByText('<persisted-output>', { exact: false }).waitFor()
    await result.getByRole('button', { name: 'Show full output' }).click()
    const whole = await result.locator('.blob-text').textContent()
    expect(whole?.trim().split('\n')).toHaveLength(20000)
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      result.getByRole('button', { name: 'Download full output' }).click(),
    ])
    const saved = await download.path()
    expect(readFileSync(saved, 'utf8')).toBe(whole)
  })

  it('shows the session, the tool pool and MCP servers, and searches the audit trail', async () => {
    const session = await call(server, ADMIN, 'POST', '/v1/sessions', {
      cwd: 'console-demo',
      permissions: { allow: ['Bash(echo *)'], deny: ['Write'] },
    })
    const sessionId = session.body.session_id as string
    const ran = await call(server, ADMIN, 'POST', '/v1/runs', {
      session_id: sessionId,
      tool_uses: [bash('toolu_audit', 'echo audited')],
    })
    expect(ran.status).toBe(200)
    await openConsole(`/console/sessions/${sessionId}`)
    await page.getByText(session.body.cwd as string).waitFor()
    await page.getByText('Bash(echo *)').waitFor()
    await page.getByText('default', { exact: true }).waitFor()
    await page.getByRole('link', { name: 'Tools' }).click()
    await page.getByRole('heading', { name: 'Bash', exact: true }).waitFor()
    await page.getByText('No MCP servers are configured.').waitFor()
    await page.getByRole('link', { name: 'Audit' }).click()
    await page.getByLabel('Session').fill(sessionId)
    await page.getByRole('button', { name: 'Search' }).click()
    const rows = page.locator('table.audit tbody tr')
    await expect.poll(() => rows.count()).toBe(2)
    expect(await rows.allTextContents()).toEqual([
      expect.stringMatching(/call.*Bash.*toolu_audit.*ok/),
      expect.stringMatching(/decision.*Bash.*toolu_audit.*allow.*rule Bash\(echo \*\)/),
    ])
  })

  it('says what a runner key may not do when it answers', async () => {
    const runId = await startRun(server, RUNNER, { ask: ['Bash'] }, [bash('toolu_1', 'echo no')])
    await openConsole(`/console/runs/${runId}`, RUNNER)
    await page.getByRole('button', { name: 'Allow', exact: true }).click()
    await page.getByRole('alert').getByText('runner role').waitFor()
    expect((await runView(server, RUNNER, runId)).permission_requests).toHaveLength(1)
    await call(server, ADMIN, 'POST', `/v1/runs/${runId}/cancel`, {})
  })

  it('has no serious accessibility violation on its main views', async () => {
    const runId = await startRun(server, RUNNER, { ask: ['Bash'] }, [bash('toolu_1', 'echo axe')])
    await openConsole()
    await page.locator(`tr[data-run-id="${runId}"]`).waitFor()
    const found: Record<string, string[]> = { runs: await seriousViolations(page) }
    await page.goto(`${server.baseUrl}/console/runs/${runId}`)
    await page.locator('.ask').waitFor()
    found.run = await seriousViolations(page)
    const sessionId = (await runView(server, RUNNER, runId)).session_id
    for (const path of ['/console/sessions', `/console/sessions/${sessionId}`, '/console/tools', '/console/audit']) {
      await page.goto(`${server.baseUrl}${path}`)
      await page.locator('main h1').waitFor()
      await page.waitForLoadState('networkidle')
      found[path] = await seriousViolations(page)
    }
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((view) => [view, []])))
    await call(server, ADMIN, 'POST', `/v1/runs/${runId}/cancel`, {})
  }, 60_000)
})

describe.skipIf(browserSkipReason !== undefined)('the console and other tenants and origins', () => {
  let browser: Browser
  beforeAll(async () => {
    browser = await launchBrowser()
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
  })

  it("never shows tenant B's runs to tenant A's key", async () => {
    const server = await startTestServer({
      consoleDirectory: await builtConsole(),
      env: { TOOLEXEC_API_KEYS: `ops=acme:admin:${ADMIN},bob=globex:admin:${GLOBEX}` },
    })
    const write = (id: string) => ({
      type: 'tool_use',
      id,
      name: 'Write',
      input: { file_path: `${id}.txt`, content: id },
    })
    const ours = await startRun(server, ADMIN, {}, [write('ours')])
    const theirs = await startRun(server, GLOBEX, {}, [write('theirs')])
    const context = await browser.newContext()
    context.setDefaultTimeout(10_000)
    const page = await context.newPage()
    await page.goto(`${server.baseUrl}/console`)
    await page.getByLabel('API key').fill(ADMIN)
    await page.getByRole('button', { name: 'Open the console' }).click()

    await page.locator(`tr[data-run-id="${ours}"]`).waitFor()
    expect(await page.content()).not.toContain(theirs)
    await page.goto(`${server.baseUrl}/console/runs/${theirs}`)
    await page.getByRole('alert').first().waitFor()
    expect(await page.locator('main').getAttribute('data-applied')).toBe('0')
    expect(await page.locator('.calls li').count()).toBe(0)
    await context.close()
    // Ended here: a run waiting for a person would hold the server's close for its drain period.
    await call(server, ADMIN, 'POST', `/v1/runs/${ours}/cancel`, {})
    await call(server, GLOBEX, 'POST', `/v1/runs/${theirs}/cancel`, {})
  })

  it('cannot be driven by a page of a foreign origin, and refuses to be framed', async () => {
    // No keys, as on a developer's loopback service: the case where only the origin checks stand
    // between a web page and a shell.
    const server = await startTestServer({ consoleDirectory: await builtConsole() })
    const target = `${server.baseUrl}/v1/runs`
    const attack = `<!doctype html><html><body>
      <iframe id="framed" src="${server.baseUrl}/console"></iframe>
      <script>
        const body = JSON.stringify({ tool_uses: [{ type: 'tool_use', id: 'x', name: 'Write', input: { file_path: 'pwned.txt', content: 'x' } }] })
        window.outcomes = Promise.all([
          fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body }).then(() => 'sent', (e) => 'failed'),
          fetch(${JSON.stringify(target)}, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => 'read ' + r.status, (e) => 'failed'),
        ])
      </script></body></html>`
    const foreign: Server = createServer((_request, response) =>
      response.setHeader('content-type', 'text/html').end(attack),
    )
    await new Promise<void>((resolve) => foreign.listen(0, '127.0.0.1', resolve))
    try {
      const context = await browser.newContext()
      context.setDefaultTimeout(10_000)
      const page = await context.newPage()
      await page.goto(`http://127.0.0.1:${(foreign.address() as AddressInfo).port}/`)
      const outcomes = await page.evaluate('window.outcomes')
      // The no-cors request reaches the server and is refused there; the JSON one fails its preflight.
      expect((outcomes as string[])[1]).toBe('failed')
      const runs = await call(server, undefined, 'GET', '/v1/runs')
      expect(runs.body.runs).toEqual([])
      // The framed console never loaded: chromium shows its error page instead.
      const framed = page.frames().find((frame) => frame !== page.mainFrame())
      expect(await framed?.locator('#app').count()).toBe(0)
      // The same console opened at its own origin works without a key on loopback.
      await page.goto(`${server.baseUrl}/console`)
      await page.locator('.summary').getByText('0 of 0 runs shown').waitFor()
      await context.close()
    } finally {
      foreign.close()
    }
  })
})
