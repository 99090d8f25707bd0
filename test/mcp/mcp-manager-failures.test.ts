// Pins the manager's failure handling with real child processes: a server dying mid-call, a missing command, a crash loop, cancellation.
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createMcpManager, type McpManager, type McpManagerOptions } from '../../src/mcp/client/mcp-manager.js'
import type { ToolProgressData } from '../../src/tool/tool.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { CLIENT_INFO, FIXTURE_SERVER, findTool, readLines, runTool, tempDir } from './mcp-test-helpers.js'

/** `${NAME}` as the settings file spells it. */
const ref = (name: string) => `\${${name}}`

const managers: McpManager[] = []

function start(servers: McpManagerOptions['servers'], extra: Partial<McpManagerOptions> = {}): McpManager {
  const manager = createMcpManager({ servers, clientInfo: CLIENT_INFO, retry: { initialDelayMs: 10 }, ...extra })
  managers.push(manager)
  return manager
}

async function fixture(log: string) {
  return { command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: log } }
}

afterEach(async () => {
  await Promise.all(managers.splice(0).map((manager) => manager.close()))
})

describe('MCP manager failures', () => {
  it('fails the call of a server that dies mid-call, reconnects, and serves later calls', async () => {
    const log = path.join(await tempDir('die'), 'events.log')
    const manager = start({ fixture: await fixture(log) })
    await manager.ready()

    const die = findTool(manager.tools(), 'mcp__fixture__die')
    await expect(runTool(die, {})).rejects.toThrow(/MCP server "fixture" disconnected while running mcp__fixture__die/)

    // The tool objects the pool holds stay valid: the call waits for the reconnection.
    const echo = findTool(manager.tools(), 'mcp__fixture__echo')
    expect(await runTool(echo, { text: 'back' })).toEqual({ content: 'back' })
    const [state] = manager.states()
    expect(state).toMatchObject({ status: 'connected', lastError: expect.stringContaining('process exited') })
    expect((await readLines(log)).filter((line) => line === 'started')).toHaveLength(2)
  })

  it('marks a server whose command does not exist as failed and keeps the other servers working', async () => {
    const log = path.join(await tempDir('ghost'), 'events.log')
    const manager = start({
      ghost: { type: 'stdio', command: '/nonexistent/toolexec-no-such-server' },
      fixture: await fixture(log),
    })
    await manager.ready()

    const ghost = manager.states().find((state) => state.name === 'ghost')
    expect(ghost).toMatchObject({ status: 'failed', toolCount: 0 })
    expect(ghost?.lastError).toMatch(/command not found: \/nonexistent\/toolexec-no-such-server/)
    expect(manager.tools().every((tool) => tool.name.startsWith('mcp__fixture__'))).toBe(true)
    expect(await runTool(findTool(manager.tools(), 'mcp__fixture__echo'), { text: 'ok' })).toEqual({ content: 'ok' })
  })

  it('gives up after the bounded retries on a server that exits at start, keeping its stderr in the error', async () => {
    const script = "console.error('boom: missing API key'); process.exit(1)"
    const manager = start(
      { crashy: { type: 'stdio', command: process.execPath, args: ['-e', script] } },
      { retry: { maxAttempts: 3, initialDelayMs: 5 } },
    )
    await manager.ready()
    const [state] = manager.states()
    expect(state?.status).toBe('failed')
    expect(state?.lastError).toContain('boom: missing API key')
  })

  it('refuses to start a server whose settings name an unset environment variable', async () => {
    const manager = start(
      { secret: { type: 'stdio', command: ref('TOOLEXEC_TEST_UNSET_COMMAND') } },
      { environment: {} },
    )
    await manager.ready()
    expect(manager.states()[0]).toMatchObject({
      status: 'failed',
      lastError: 'missing environment variables: TOOLEXEC_TEST_UNSET_COMMAND',
    })
  })

  it('sends notifications/cancelled when the call is aborted and rejects the call', async () => {
    const log = path.join(await tempDir('cancel'), 'events.log')
    const manager = start({ fixture: await fixture(log) })
    await manager.ready()

    const controller = new AbortController()
    let started = () => {}
    const progressed = new Promise<void>((resolve) => {
      started = resolve
    })
    const progress: ToolProgressData[] = []
    const call = runTool(
      findTool(manager.tools(), 'mcp__fixture__wait-for-cancel'),
      {},
      {
        signal: controller.signal,
        onProgress: (data) => {
          progress.push(data)
          started()
        },
      },
    )
    await progressed
    controller.abort('user pressed stop')
    await expect(call).rejects.toThrow(/mcp__fixture__wait-for-cancel was cancelled/)
    expect(progress).toEqual([{ progress: 1, total: 2, message: 'waiting' }])
    const cancelled = await vi.waitFor(async () => {
      const line = (await readLines(log)).find((candidate) => candidate.startsWith('cancelled'))
      expect(line, 'the server to log the cancellation').toBeDefined()
      return line
    }, REAL_PROCESS_WAIT)
    expect(cancelled).toBe('cancelled user pressed stop')
    expect(manager.states()[0]?.status).toBe('connected')
  })

  it('refreshes the tools on tools/list_changed and tells the listeners', async () => {
    const log = path.join(await tempDir('changed'), 'events.log')
    const manager = start({ fixture: await fixture(log) })
    await manager.ready()
    const before = manager.tools()
    const changed = new Promise<readonly string[]>((resolve) => {
      manager.onToolsChanged((tools) => resolve(tools.map((tool) => tool.name)))
    })
    await runTool(findTool(before, 'mcp__fixture__add-tool'), { name: 'fresh.tool' })
    expect(await changed).toContain('mcp__fixture__fresh_tool')
    expect(manager.states()[0]?.toolCount).toBe(before.length + 1)
  })

  it('reports connecting before the first connection settles and refuses calls once closed', async () => {
    const log = path.join(await tempDir('close'), 'events.log')
    const manager = start({ fixture: await fixture(log) })
    expect(manager.states()[0]?.status).toBe('connecting')
    await manager.ready()
    await manager.close()
    await expect(runTool(findTool(manager.tools(), 'mcp__fixture__echo'), { text: 'x' })).rejects.toThrow(
      /has been shut down/,
    )
  })
})
