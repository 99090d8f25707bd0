// Pins /mcp with the SDK's own Client over Streamable HTTP: listing, Bash with progress, permission denials, session state, cancellation.
import { existsSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { DEFAULT_TENANT } from '../../src/auth/default-tenant.js'
import { RUN_ID_META_KEY } from '../../src/mcp/endpoint/create-toolexec-mcp-server.js'
import { createBuiltInTools } from '../../src/tools/built-in-tools.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { startServiceWithMcp, tempDir } from './mcp-test-helpers.js'

type Service = Awaited<ReturnType<typeof startServiceWithMcp>>

type TextContent = Array<{ type: string; text?: string }>
const textOf = (content: unknown) => (content as TextContent).map((block) => block.text ?? '').join('\n')

describe('/mcp endpoint', () => {
  let testApp: Service
  let url: URL
  let client: Client
  let scratch: string

  async function connect(query = ''): Promise<Client> {
    const next = new Client({ name: 'endpoint-test', version: '1.0.0' })
    await next.connect(new StreamableHTTPClientTransport(new URL(`${url.href}${query}`)))
    return next
  }

  beforeAll(async () => {
    scratch = await tempDir('endpoint')
    testApp = await startServiceWithMcp({
      baseTools: createBuiltInTools(),
      settings: { permissions: { allow: ['Bash', 'Edit'], ask: ['Bash(touch:*)'], deny: ['Bash(rm:*)'] } },
    })
    url = testApp.url
    client = await connect()
  })

  afterAll(async () => {
    await client?.close()
    await testApp?.close()
  })

  it('lists the tool pool with each tool input schema', async () => {
    const { tools } = await client.listTools()
    const names = tools.map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(['Bash', 'Read', 'Write', 'Edit']))
    const bash = tools.find((tool) => tool.name === 'Bash')
    expect(bash?.inputSchema).toMatchObject({ type: 'object', properties: { command: expect.any(Object) } })
    expect(bash?.description).toBeTruthy()
  })

  it('runs Bash through the engine and forwards its output as MCP progress', async () => {
    const flag = path.join(scratch, 'go')
    const messages: string[] = []
    const command = `echo started; while [ ! -f '${flag}' ]; do sleep 0.02; done; echo finished`
    const result = await client.callTool({ name: 'Bash', arguments: { command } }, undefined, {
      // The command waits for the flag, which the test writes once the first progress arrives.
      onprogress: (progress) => {
        messages.push(progress.message ?? '')
        if (messages.length === 1) void writeFile(flag, '')
      },
    })
    expect(messages[0]).toContain('started')
    expect(result.isError).toBeUndefined()
    expect(textOf(result.content)).toContain('started\nfinished')
    expect(result._meta?.[RUN_ID_META_KEY]).toMatch(/^run_/)
  })

  it('returns a deny rule as an error result and never runs the command', async () => {
    const victim = path.join(scratch, 'keep.txt')
    await writeFile(victim, 'still here')
    const result = await client.callTool({ name: 'Bash', arguments: { command: `rm -f ${victim}` } })
    expect(result.isError).toBe(true)
    expect(textOf(result.content)).toBe('Permission to use Bash has been denied.')
    expect(existsSync(victim)).toBe(true)
  })

  it('denies a call that needs approval, since nobody can answer an ask over /mcp', async () => {
    const target = path.join(scratch, 'asked.txt')
    const result = await client.callTool({ name: 'Bash', arguments: { command: `touch ${target}` } })
    expect(result.isError).toBe(true)
    expect(textOf(result.content)).toBe(
      'Permission to use Bash has been denied: this call needs approval and no approver is connected to answer.',
    )
    expect(existsSync(target)).toBe(false)
  })

  it('reports unknown tools and invalid inputs as error results', async () => {
    const unknown = await client.callTool({ name: 'Nope', arguments: {} })
    expect(textOf(unknown.content)).toBe('<tool_use_error>Error: No such tool available: Nope</tool_use_error>')
    const invalid = await client.callTool({ name: 'Bash', arguments: { cmd: 'ls' } })
    expect(invalid.isError).toBe(true)
    expect(textOf(invalid.content)).toContain('The required parameter `command` is missing')
  })

  it('keeps one toolexec session per MCP session, so Edit sees what Read read', async () => {
    const file = path.join(testApp.config.workspace, 'notes.txt')
    await mkdir(testApp.config.workspace, { recursive: true })
    await writeFile(file, 'alpha\n')
    const edit = { file_path: file, old_string: 'alpha', new_string: 'beta' }
    const fresh = await connect()
    try {
      const before = await fresh.callTool({ name: 'Edit', arguments: edit })
      expect(textOf(before.content)).toMatch(/has not been read in this session/)
      await fresh.callTool({ name: 'Read', arguments: { file_path: file } })
      const after = await fresh.callTool({ name: 'Edit', arguments: edit })
      expect(after.isError).toBeUndefined()
      expect(await readFile(file, 'utf8')).toBe('beta\n')
    } finally {
      await fresh.close()
    }
  })

  it('cancels the run when the client cancels the call', async () => {
    const statuses: string[] = []
    const stop = testApp.app.runManager.onEvent((event) => {
      if (event.type === 'run.completed') statuses.push(event.status)
    })
    const controller = new AbortController()
    const call = client.callTool(
      { name: 'Bash', arguments: { command: 'echo waiting; sleep 20; echo late' } },
      undefined,
      { signal: controller.signal, onprogress: () => controller.abort('stop') },
    )
    await expect(call).rejects.toThrow(/stop/)
    // The session takes the next call only once the cancelled run has finished, long before 20 s.
    const next = await client.callTool({ name: 'Bash', arguments: { command: 'echo after' } })
    stop()
    expect(textOf(next.content)).toBe('after')
    expect(statuses).toEqual(['cancelled', 'completed'])
  })

  it('binds the MCP session to an existing toolexec session named at initialize', async () => {
    const record = await testApp.app.sessions.create(DEFAULT_TENANT)
    const file = path.join(testApp.config.workspace, 'bound.txt')
    await writeFile(file, 'bound\n')
    const bound = await connect(`?session_id=${record.sessionId}`)
    try {
      await bound.callTool({ name: 'Read', arguments: { file_path: file } })
      const session = await testApp.app.sessions.get(DEFAULT_TENANT, record.sessionId)
      expect([...session.readFileState.keys()]).toContain(file)
    } finally {
      await bound.close()
    }
    await expect(connect('?session_id=ses_missing')).rejects.toThrow(/session_not_found/)
  })

  it('tells open sessions when the tool list changes', async () => {
    const listening = new Client({ name: 'listener', version: '1.0.0' })
    let notified = false
    listening.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notified = true
    })
    await listening.connect(new StreamableHTTPClientTransport(url))
    try {
      // The notification travels on the client's GET stream, which opens just after initialize.
      await vi.waitFor(() => {
        testApp.app.mcpEndpoint.toolsChanged()
        expect(notified, 'tools/list_changed').toBe(true)
      }, REAL_PROCESS_WAIT)
    } finally {
      await listening.close()
    }
  })

  it('ends the session on DELETE and deletes the toolexec session it created', async () => {
    const transport = new StreamableHTTPClientTransport(url)
    const ending = new Client({ name: 'ending', version: '1.0.0' })
    await ending.connect(transport)
    await ending.callTool({ name: 'Bash', arguments: { command: 'echo hi' } })
    const count = await testApp.app.mcpEndpoint.openSessions()
    await transport.terminateSession()
    expect(await testApp.app.mcpEndpoint.openSessions()).toBe(count - 1)
    await ending.close()
  })

  it('answers 404 for an unknown session id, so the client starts over', async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': 'mcp_unknown',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(response.status).toBe(404)
  })
})

describe('/mcp with API keys', () => {
  it('needs a key, and keeps one tenant out of another tenant session', async () => {
    const service = await startServiceWithMcp({ env: { TOOLEXEC_API_KEYS: 'alpha:key-alpha,beta:key-beta' } })
    onTestFinished(service.close)
    const { url } = service
    const as = (key?: string) =>
      new StreamableHTTPClientTransport(
        url,
        key ? { requestInit: { headers: { authorization: `Bearer ${key}` } } } : {},
      )

    await expect(new Client({ name: 'anonymous', version: '1' }).connect(as())).rejects.toThrow(/401/)
    const alphaTransport = as('key-alpha')
    const alpha = new Client({ name: 'alpha', version: '1' })
    await alpha.connect(alphaTransport)
    try {
      // Two tenants and no sandbox in tests: Bash is left out, the file tools are there.
      const names = (await alpha.listTools()).tools.map((tool) => tool.name)
      expect(names).toContain('Read')
      expect(names).not.toContain('Bash')
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          authorization: 'Bearer key-beta',
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': alphaTransport.sessionId ?? '',
          'mcp-protocol-version': alphaTransport.protocolVersion ?? '',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list' }),
      })
      expect(response.status).toBe(404)
    } finally {
      await alpha.close()
    }
  })
})

describe('/mcp at shutdown', () => {
  it('closes the notification streams of open MCP sessions, so the server can stop', async () => {
    const service = await startServiceWithMcp()
    const client = new Client({ name: 'lingering', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(service.url))
    await client.listTools()
    // The client opens its GET stream just after initialize, without waiting for it.
    await vi.waitFor(() => expect(service.app.mcpEndpoint.streamCount).toBe(1), REAL_PROCESS_WAIT)
    await service.close()
    expect(service.app.mcpEndpoint.streamCount).toBe(0)
    await client.close()
  })
})
