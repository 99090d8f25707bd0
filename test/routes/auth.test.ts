// Pins authentication and tenant isolation: bearer keys map to tenants, another tenant's runs,
// sessions and blobs are 404, each tenant works in its own directory, no keys means loopback only.
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { createTestTools } from '../helpers/test-tools.js'

const KEYS = 'acme:acme-key-1,acme:acme-key-2,globex:globex-key'
const as = (key: string) => ({ authorization: `Bearer ${key}` })

async function setup() {
  const tools = createTestTools()
  const { app, root } = await buildTestApp({ extraTools: tools.tools, env: { TOOLEXEC_API_KEYS: KEYS } })
  return { app, root }
}

describe('auth', () => {
  it('answers 401 problem+json without a key or with an unknown one', async () => {
    const { app } = await setup()
    for (const headers of [{}, as('wrong'), { authorization: 'Basic abc' }]) {
      const response = await app.inject({ url: '/v1/tools', headers })
      expect(response.statusCode).toBe(401)
      expect(response.headers['www-authenticate']).toBe('Bearer')
      expect(response.json().code).toBe('unauthorized')
    }
  })

  it('keeps probes, metrics and docs public', async () => {
    const { app } = await setup()
    for (const url of ['/healthz', '/readyz', '/metrics', '/openapi.json', '/docs']) {
      const response = await app.inject({ url })
      expect(response.statusCode, url).toBeLessThan(400)
    }
  })

  it('shares runs between keys of one tenant and hides them from another tenant', async () => {
    const { app } = await setup()
    const created = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      headers: as('acme-key-1'),
      payload: { tool_uses: [{ type: 'tool_use', id: 'a', name: 'Echo', input: { text: 'secret' } }] },
    })
    const { run_id } = created.json()
    expect((await app.inject({ url: `/v1/runs/${run_id}`, headers: as('acme-key-2') })).statusCode).toBe(200)
    for (const request of [
      { url: `/v1/runs/${run_id}` },
      { url: `/v1/runs/${run_id}/events`, headers: { accept: 'text/event-stream' } },
      { method: 'POST' as const, url: `/v1/runs/${run_id}/cancel`, payload: {} },
    ]) {
      const response = await app.inject({ ...request, headers: { ...request.headers, ...as('globex-key') } })
      expect(response.statusCode).toBe(404)
      expect(response.json().code).toBe('run_not_found')
    }
  })

  it('gives each tenant its own workspace and hides sessions and blobs across tenants', async () => {
    const { app, root } = await setup()
    const session = (
      await app.inject({ method: 'POST', url: '/v1/sessions', headers: as('acme-key-1'), payload: {} })
    ).json()
    expect(session.cwd).toBe(path.join(root, 'workspace', 'acme'))
    expect(
      (await app.inject({ url: `/v1/sessions/${session.session_id}`, headers: as('globex-key') })).statusCode,
    ).toBe(404)
    const run = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      headers: as('acme-key-1'),
      payload: { tool_uses: [{ type: 'tool_use', id: 'big', name: 'Echo', input: { text: 'x'.repeat(60_000) } }] },
    })
    const [blob] = run.json().blobs
    expect(blob).toMatchObject({ tool_use_id: 'big', url: `/v1/blobs/${blob.blob_id}`, size: 60_000 })
    const mine = await app.inject({ url: blob.url, headers: as('acme-key-2') })
    expect(mine.statusCode).toBe(200)
    expect(mine.body).toBe('x'.repeat(60_000))
    const theirs = await app.inject({ url: blob.url, headers: as('globex-key') })
    expect(theirs.statusCode).toBe(404)
    expect(theirs.json().code).toBe('blob_not_found')
  })

  it('accepts ?access_token= for clients that cannot set headers', async () => {
    const { app } = await setup()
    const response = await app.inject({ url: '/v1/tools?access_token=globex-key' })
    expect(response.statusCode).toBe(200)
  })
})

describe('without API keys', () => {
  it('serves loopback clients as tenant default and refuses others', async () => {
    const { app } = await buildTestApp()
    expect((await app.inject({ url: '/v1/tools', remoteAddress: '127.0.0.1' })).statusCode).toBe(200)
    const remote = await app.inject({ url: '/v1/tools', remoteAddress: '10.1.2.3' })
    expect(remote.statusCode).toBe(403)
    expect(remote.json().code).toBe('loopback_only')
  })
})
