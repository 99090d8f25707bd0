// Pins `${secret:NAME}` in MCP server settings (docs/adr/0332-secret-references.md): a real HTTP
// server receives the resolved header and a real stdio server (server-everything) the resolved env
// and nothing else of the service's (TOOLEXEC_SECRET_KEY least of all); an unknown secret is a
// failed state naming it, and writing it brings the server up.
import { randomBytes } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { createMcpManager } from '../../src/mcp/client/mcp-manager.js'
import { startGuardedMcpServer } from '../helpers/guarded-mcp-server.js'
import { createMemoryVault } from '../helpers/memory-vault.js'
import { CLIENT_INFO, EVERYTHING_SERVER, findTool, runTool } from './mcp-test-helpers.js'

/** `${secret:NAME}` as the settings file spells it. */
const ref = (name: string) => `\${secret:${name}}`

const TOKEN = `tok-${randomBytes(12).toString('hex')}`

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

describe('secret references in MCP server settings', () => {
  it('fails a server whose secret is not stored, naming it, and connects once it is written', async () => {
    const fixture = await startGuardedMcpServer(TOKEN)
    cleanups.push(fixture.close)
    const vault = createMemoryVault()
    const manager = createMcpManager({
      servers: {
        remote: { type: 'http', url: fixture.url, headers: { Authorization: `Bearer ${ref('remote-token')}` } },
      },
      clientInfo: CLIENT_INFO,
      resolveSecret: (name) => vault.resolve(name),
      retry: { initialDelayMs: 10 },
    })
    cleanups.push(manager.close)
    await manager.ready()
    expect(manager.states()[0]).toMatchObject({
      status: 'failed',
      lastError: 'secret "remote-token" is not stored (an admin writes it with PUT /v1/secrets/remote-token)',
    })
    // Not one request went out with the reference unresolved or empty.
    expect(fixture.seen).toEqual([])

    const connected = new Promise<void>((resolve) => manager.onToolsChanged((tools) => tools.length > 0 && resolve()))
    vault.onWrite(() => manager.retryFailed())
    await vault.write('remote-token', TOKEN, 'ops')
    await connected
    expect(await runTool(findTool(manager.tools(), 'mcp__remote__ping'), {})).toEqual({ content: 'pong' })
    expect(manager.states()[0]).toMatchObject({ status: 'connected' })
    expect(new Set(fixture.seen)).toEqual(new Set([`Bearer ${TOKEN}`]))
    expect(JSON.stringify(manager.states())).not.toContain(TOKEN)
  })

  it("gives a stdio server the resolved env and none of the service's variables", async () => {
    const vault = createMemoryVault()
    await vault.write('stdio-token', TOKEN, 'ops')
    process.env.TOOLEXEC_SECRET_KEY = randomBytes(32).toString('base64')
    process.env.SERVICE_ONLY_CREDENTIAL = 'not-for-servers'
    cleanups.push(() => {
      delete process.env.TOOLEXEC_SECRET_KEY
      delete process.env.SERVICE_ONLY_CREDENTIAL
    })
    const manager = createMcpManager({
      servers: {
        everything: {
          command: process.execPath,
          args: [EVERYTHING_SERVER, 'stdio'],
          env: { API_TOKEN: `${ref('stdio-token')}`, PLAIN: `x-${ref('stdio-token')}-y` },
        },
      },
      clientInfo: CLIENT_INFO,
      resolveSecret: (name) => vault.resolve(name),
    })
    cleanups.push(manager.close)
    await manager.ready()
    const result = await runTool(findTool(manager.tools(), 'mcp__everything__get-env'), {})
    const env = JSON.parse(String((result as { content: unknown }).content)) as Record<string, string>
    expect(env.API_TOKEN).toBe(TOKEN)
    expect(env.PLAIN).toBe(`x-${TOKEN}-y`)
    expect(env.TOOLEXEC_SECRET_KEY).toBeUndefined()
    expect(env.SERVICE_ONLY_CREDENTIAL).toBeUndefined()
  })
})
