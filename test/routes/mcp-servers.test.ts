// Pins the wiring of the settings file's mcpServers: servers connect in the background, their state
// is served by GET /v1/mcp/servers and /readyz, and their tools join the pool as they connect.
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'

const FIXTURE_SERVER = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url))

describe('MCP servers from the settings file', () => {
  it('reports their state and adds their tools to the pool once connected', async () => {
    const { app } = await buildTestApp({
      settings: { mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } } },
    })
    // A real child process connects in the background: poll its state, with a generous bound.
    let servers: Array<{ name: string; status: string; toolCount: number }> = []
    for (let attempt = 0; attempt < 200; attempt++) {
      servers = (await app.inject({ url: '/v1/mcp/servers' })).json().servers
      if (servers[0]?.status === 'connected') break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(servers).toEqual([expect.objectContaining({ name: 'fixture', type: 'stdio', status: 'connected' })])
    expect(servers[0]!.toolCount).toBeGreaterThan(0)
    const ready = (await app.inject({ url: '/readyz' })).json()
    expect(ready.mcp_servers).toEqual(servers)
    const names = (await app.inject({ url: '/v1/tools' })).json().tools.map((tool: { name: string }) => tool.name)
    expect(names).toContain('mcp__fixture__echo')
  })

  it('reports no servers when none are configured', async () => {
    const { app } = await buildTestApp()
    expect((await app.inject({ url: '/v1/mcp/servers' })).json()).toEqual({ servers: [] })
  })
})
