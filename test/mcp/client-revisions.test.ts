// Pins the MCP client's revision negotiation: `auto` speaks 2026-07-28 statelessly to our own /mcp and the
// initialize handshake to server-everything over stdio; progress, cancellation, list changes and a restart
// work across the new revision; a server that exits on the probe, a pin not offered, a bad value at load.
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createMcpManager, type McpManager } from '../../src/mcp/client/mcp-manager.js'
import type { McpServersInput } from '../../src/mcp/client/mcp-settings-schema.js'
import type { ToolProgressData } from '../../src/tool/tool.js'
import { createBuiltInTools } from '../../src/tools/built-in-tools.js'
import { buildTestApp } from '../helpers/build-test-app.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { startTestServer } from '../helpers/start-test-server.js'
import {
  CLIENT_INFO,
  EVERYTHING_SERVER,
  FIXTURE_SERVER,
  findTool,
  runTool,
  startServiceWithMcp,
  tempDir,
} from './mcp-test-helpers.js'

const EXITS_ON_DISCOVER = fileURLToPath(new URL('../fixtures/mcp/exits-on-discover.mjs', import.meta.url))

type Service = Awaited<ReturnType<typeof startServiceWithMcp>>

describe('MCP client revisions', () => {
  let upstream: Service
  let scratch: string
  const managers: McpManager[] = []

  async function connect(servers: McpServersInput): Promise<McpManager> {
    const manager = createMcpManager({ servers, clientInfo: CLIENT_INFO })
    managers.push(manager)
    await manager.ready()
    return manager
  }

  beforeAll(async () => {
    scratch = await tempDir('revisions')
    upstream = await startServiceWithMcp({
      baseTools: createBuiltInTools(),
      settings: { permissions: { allow: ['Bash'] } },
    })
  })

  afterAll(async () => {
    await Promise.all(managers.map((manager) => manager.close()))
    await upstream?.close()
  })

  it('shows the negotiated revision of each server in /v1/mcp/servers', async () => {
    const service = await startTestServer({
      lifetime: 'manual',
      settings: {
        mcpServers: {
          modern: { type: 'http', url: upstream.url.href },
          older: { type: 'http', url: upstream.url.href, protocol: '2025-11-25' },
          everything: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'] },
        },
      },
    })
    type Listed = { name: string; status: string; protocol_version?: string }
    try {
      const servers: Listed[] = await vi.waitFor(async () => {
        const body = (await (await fetch(`${service.baseUrl}/v1/mcp/servers`)).json()) as { servers: Listed[] }
        const listed = body.servers
        expect(listed.map((server) => server.status)).toEqual(['connected', 'connected', 'connected'])
        return listed
      }, REAL_PROCESS_WAIT)
      const versions = Object.fromEntries(servers.map((server) => [server.name, server.protocol_version]))
      expect(versions).toEqual({ modern: '2026-07-28', older: '2025-11-25', everything: '2025-11-25' })
    } finally {
      await service.close()
    }
  })

  it('opens no session on our /mcp when auto settles on 2026-07-28', async () => {
    const before = await upstream.app.mcpEndpoint.openSessions()
    const manager = await connect({ modern: { type: 'http', url: upstream.url.href } })
    expect(manager.states()[0]).toMatchObject({ status: 'connected', protocolVersion: '2026-07-28' })
    const result = await runTool(findTool(manager.tools(), 'mcp__modern__Bash'), { command: 'echo hi' })
    expect(JSON.stringify(result.content)).toContain('hi')
    expect(await upstream.app.mcpEndpoint.openSessions()).toBe(before)
  })

  it('relays progress from a 2026-07-28 server', async () => {
    const manager = await connect({ modern: { type: 'http', url: upstream.url.href } })
    const flag = path.join(scratch, 'go')
    const progress: ToolProgressData[] = []
    const command = `echo started; while [ ! -f '${flag}' ]; do sleep 0.02; done; echo finished`
    const result = await runTool(
      findTool(manager.tools(), 'mcp__modern__Bash'),
      { command },
      {
        onProgress: (data) => {
          progress.push(data)
          if (progress.length === 1) void writeFile(flag, '')
        },
      },
    )
    expect(JSON.stringify(progress[0])).toContain('started')
    expect(JSON.stringify(result.content)).toContain('finished')
  })

  it('cancels the upstream run when a call to a 2026-07-28 server is aborted', async () => {
    const manager = await connect({ modern: { type: 'http', url: upstream.url.href } })
    const statuses: string[] = []
    const stop = upstream.app.runManager.onEvent((event) => {
      if (event.type === 'run.completed') statuses.push(event.status)
    })
    try {
      const controller = new AbortController()
      const call = runTool(
        findTool(manager.tools(), 'mcp__modern__Bash'),
        { command: 'echo waiting; sleep 20; echo late' },
        { signal: controller.signal, onProgress: () => controller.abort('stop') },
      )
      await expect(call).rejects.toThrow(/was cancelled/)
      await vi.waitFor(() => expect(statuses).toContain('cancelled'), REAL_PROCESS_WAIT)
    } finally {
      stop()
    }
  })

  it('follows tool list changes of a 2026-07-28 server on its listen stream', async () => {
    // The upstream's own MCP server adds a tool; the upstream's /mcp tells its listen streams.
    const chained = await startServiceWithMcp({
      settings: {
        permissions: { allow: ['mcp__fixture'] },
        mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } },
      },
    })
    try {
      await vi.waitFor(() => expect(chained.app.mcpServers.states()[0]?.status).toBe('connected'), REAL_PROCESS_WAIT)
      const manager = await connect({ up: { type: 'http', url: chained.url.href } })
      expect(manager.states()[0]).toMatchObject({ status: 'connected', protocolVersion: '2026-07-28' })
      const changed = new Promise<readonly string[]>((resolve) => {
        manager.onToolsChanged((tools) => resolve(tools.map((tool) => tool.name)))
      })
      await runTool(findTool(manager.tools(), 'mcp__up__mcp__fixture__add-tool'), { name: 'fresh.tool' })
      expect(await changed).toContain('mcp__up__mcp__fixture__fresh_tool')
    } finally {
      await chained.close()
    }
  })

  it('keeps calling a 2026-07-28 server across its restart', async () => {
    const options = { baseTools: createBuiltInTools(), settings: { permissions: { allow: ['Bash'] } } }
    const first = await startServiceWithMcp(options)
    const manager = await connect({ restarting: { type: 'http', url: first.url.href } })
    const bash = findTool(manager.tools(), 'mcp__restarting__Bash')
    expect(JSON.stringify((await runTool(bash, { command: 'echo before' })).content)).toContain('before')
    await first.close()
    const second = await buildTestApp({ ...options, lifetime: 'manual' })
    await second.app.listen({ host: '127.0.0.1', port: Number(first.url.port) })
    try {
      expect(JSON.stringify((await runTool(bash, { command: 'echo after' })).content)).toContain('after')
      expect(manager.states()[0]).toMatchObject({ protocolVersion: '2026-07-28' })
    } finally {
      await second.close()
    }
  })

  it('reaches a stdio server that exits on the probe with initialize on the next attempt', async () => {
    const manager = createMcpManager({
      servers: { strict: { command: process.execPath, args: [EXITS_ON_DISCOVER] } },
      clientInfo: CLIENT_INFO,
      retry: { initialDelayMs: 10 },
    })
    managers.push(manager)
    await manager.ready()
    expect(manager.states()[0]).toMatchObject({ status: 'connected', protocolVersion: '2025-11-25' })
    expect(await runTool(findTool(manager.tools(), 'mcp__strict__echo'), { text: 'hello' })).toEqual({
      content: 'hello',
    })
  })

  it('fails a server pinned to 2026-07-28 that does not offer it, saying why', async () => {
    const manager = createMcpManager({
      servers: {
        pinned: { command: process.execPath, args: [EVERYTHING_SERVER, 'stdio'], protocol: '2026-07-28' },
      },
      clientInfo: CLIENT_INFO,
      retry: { initialDelayMs: 10, maxAttempts: 2 },
    })
    managers.push(manager)
    await manager.ready()
    expect(manager.states()[0]).toMatchObject({
      status: 'failed',
      lastError: expect.stringContaining('did not offer pinned protocol version 2026-07-28'),
    })
  })

  it('refuses a revision the client cannot speak at load', () => {
    expect(() =>
      createMcpManager({
        servers: { old: { type: 'http', url: upstream.url.href, protocol: '2024-01-01' as never } },
        clientInfo: CLIENT_INFO,
      }),
    ).toThrow(/mcpServers\.old\.protocol: protocol must be one of "auto", "2026-07-28", "2025-11-25"/)
  })
})
