// Pins the wiring of the settings file's mcpServers: servers connect in the background, their state
// is served by GET /v1/mcp/servers and /readyz, and their tools join the pool as they connect.
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { buildTestApp } from '../helpers/build-test-app.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'

const FIXTURE_SERVER = fileURLToPath(new URL('../fixtures/mcp/fixture-server.mjs', import.meta.url))

describe('MCP servers from the settings file', () => {
  it('reports their state and adds their tools to the pool once connected', async () => {
    const { app } = await buildTestApp({
      settings: { mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } } },
    })
    // A real child process connects in the background: poll its state, with a generous bound.
    const servers: Array<{ name: string; status: string; tool_count: number }> = await vi.waitFor(async () => {
      const listed = (await app.inject({ url: '/v1/mcp/servers' })).json().servers
      expect(listed[0]?.status).toBe('connected')
      return listed
    }, REAL_PROCESS_WAIT)
    expect(servers).toEqual([expect.objectContaining({ name: 'fixture', type: 'stdio', status: 'connected' })])
    expect(servers[0]!.tool_count).toBeGreaterThan(0)
    const ready = (await app.inject({ url: '/readyz' })).json()
    expect(ready.mcp_servers).toEqual(servers)
    const names = (await app.inject({ url: '/v1/tools' })).json().tools.map((tool: { name: string }) => tool.name)
    expect(names).toContain('mcp__fixture__echo')
  })

  it('reports a server that never starts, and the rest of the pool still works', async () => {
    const { app } = await buildTestApp({
      settings: {
        mcpServers: {
          broken: { command: '/nonexistent/mcp-server' },
          fixture: { command: process.execPath, args: [FIXTURE_SERVER] },
        },
      },
    })
    const servers: Array<{ name: string; status: string; last_error?: string }> = await vi.waitFor(async () => {
      const listed: Array<{ name: string; status: string; last_error?: string }> = (
        await app.inject({ url: '/readyz' })
      ).json().mcp_servers
      expect(listed.every((server) => server.status === 'connected' || server.status === 'failed')).toBe(true)
      return listed
    }, REAL_PROCESS_WAIT)
    const ready = await app.inject({ url: '/readyz' })
    expect(ready.statusCode).toBe(200)
    const broken = servers.find((server) => server.name === 'broken')
    expect(broken).toMatchObject({ status: 'failed', last_error: expect.stringContaining('/nonexistent/mcp-server') })
    const run = await app.inject({
      method: 'POST',
      url: '/v1/runs',
      payload: {
        tool_uses: [
          { type: 'tool_use', id: 'echo', name: 'mcp__fixture__echo', input: { text: 'still here' } },
          { type: 'tool_use', id: 'bash', name: 'Bash', input: { command: 'echo built-ins too' } },
        ],
      },
    })
    const results = run.json().results
    expect(results.map((result: { is_error?: boolean }) => result.is_error)).toEqual([undefined, undefined])
    expect(JSON.stringify(results[0].content)).toContain('still here')
    expect(results[1].content).toBe('built-ins too')
  })

  it('reports no servers when none are configured', async () => {
    const { app } = await buildTestApp()
    expect((await app.inject({ url: '/v1/mcp/servers' })).json()).toEqual({ servers: [] })
  })
})
