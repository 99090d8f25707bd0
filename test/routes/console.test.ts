// Pins how /console is served: the page for every console path (an ask URL opens directly), with
// a strict CSP and no framing, public without a key because it holds no data; built assets with
// ETags; a clear 503 when only tsc ran; nothing at all with TOOLEXEC_CONSOLE=false.
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { builtConsole } from '../helpers/console-build.js'
import { startTestServer } from '../helpers/start-test-server.js'

const KEYS = { TOOLEXEC_API_KEYS: 'ops=acme:admin:admin-secret' }

describe('/console', () => {
  it('serves the page at every console path, without a key, with a strict CSP and no framing', async () => {
    const server = await startTestServer({ consoleDirectory: await builtConsole(), env: KEYS })
    for (const url of ['/console', '/console/runs/run_1/asks/perm_1', '/console/audit']) {
      const response = await fetch(`${server.baseUrl}${url}`)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
      const csp = response.headers.get('content-security-policy')!
      expect(csp).toContain("script-src 'self'")
      expect(csp).toContain("frame-ancestors 'none'")
      expect(csp).not.toContain('unsafe-inline')
      expect(response.headers.get('x-frame-options')).toBe('DENY')
      const page = await response.text()
      // Every script comes from the service: none inline, none from another host.
      expect([...page.matchAll(/<script\b[^>]*>/g)].map(([tag]) => tag)).toEqual([
        '<script type="module" src="/console/assets/app.js">',
      ])
      expect(page).not.toMatch(/https?:\/\//)
    }
    // The API behind it still wants the key.
    expect((await fetch(`${server.baseUrl}/v1/runs`)).status).toBe(401)
  })

  it('serves the built assets with an ETag, 304 when unchanged, and 404 for anything else', async () => {
    const directory = await builtConsole()
    const server = await startTestServer({ consoleDirectory: directory })
    const script = await fetch(`${server.baseUrl}/console/assets/app.js`)
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await script.text()).toBe(await readFile(path.join(directory, 'app.js'), 'utf8'))
    const etag = script.headers.get('etag')!
    const again = await fetch(`${server.baseUrl}/console/assets/app.js`, { headers: { 'if-none-match': etag } })
    expect(again.status).toBe(304)
    const missing = await fetch(`${server.baseUrl}/console/assets/other.js`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toMatchObject({ code: 'route_not_found' })
  })

  it('says how to build it when only tsc ran, and is absent when turned off', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'toolexec-no-console-'))
    const unbuilt = await startTestServer({ consoleDirectory: empty })
    const response = await fetch(`${unbuilt.baseUrl}/console`)
    expect(response.status).toBe(503)
    expect(await response.json()).toMatchObject({
      code: 'console_not_built',
      detail: expect.stringContaining('npm run build'),
    })
    const off = await startTestServer({ consoleDirectory: await builtConsole(), env: { TOOLEXEC_CONSOLE: 'false' } })
    expect((await fetch(`${off.baseUrl}/console`)).status).toBe(404)
  })
})
