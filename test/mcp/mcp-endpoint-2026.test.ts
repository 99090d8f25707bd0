// Pins /mcp at the 2026-07-28 revision with the SDK v2 client: stateless discovery, listing, calls with progress, list changes on a listen stream, cancellation, the new error codes.
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DEFAULT_TENANT } from '../../src/auth/default-tenant.js'
import { RUN_ID_META_KEY } from '../../src/mcp/endpoint/create-toolexec-mcp-server.js'
import { createBuiltInTools } from '../../src/tools/built-in-tools.js'
import { REAL_PROCESS_WAIT } from '../helpers/real-process-wait.js'
import { startServiceWithMcp, tempDir } from './mcp-test-helpers.js'

type Service = Awaited<ReturnType<typeof startServiceWithMcp>>
type TextContent = Array<{ type: string; text?: string }>
const textOf = (content: unknown) => (content as TextContent).map((block) => block.text ?? '').join('\n')

const MODERN = '2026-07-28'

describe('/mcp at the 2026-07-28 revision', () => {
  let service: Service
  let scratch: string

  async function connect(query = ''): Promise<Client> {
    const client = new Client({ name: 'modern-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url.href}${query}`)))
    return client
  }

  beforeAll(async () => {
    scratch = await tempDir('modern')
    service = await startServiceWithMcp({
      baseTools: createBuiltInTools(),
      settings: { permissions: { allow: ['Bash', 'Edit'], deny: ['Bash(rm:*)'] } },
    })
  })

  afterAll(async () => {
    await service?.close()
  })

  it('negotiates the modern revision through server/discover and keeps no session', async () => {
    const client = await connect()
    try {
      expect(client.getProtocolEra()).toBe('modern')
      expect(client.getNegotiatedProtocolVersion()).toBe(MODERN)
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['Bash', 'Read', 'Edit']))
      expect(await service.app.mcpEndpoint.openSessions()).toBe(0)
    } finally {
      await client.close()
    }
  })

  it('runs a call through the engine and forwards its progress', async () => {
    const client = await connect()
    try {
      const flag = path.join(scratch, 'go')
      const messages: string[] = []
      const command = `echo started; while [ ! -f '${flag}' ]; do sleep 0.02; done; echo finished`
      const result = await client.callTool(
        { name: 'Bash', arguments: { command } },
        {
          onprogress: (progress) => {
            messages.push(progress.message ?? '')
            if (messages.length === 1) void writeFile(flag, '')
          },
        },
      )
      expect(messages[0]).toContain('started')
      expect(textOf(result.content)).toContain('started\nfinished')
      expect(result._meta?.[RUN_ID_META_KEY]).toMatch(/^run_/)
    } finally {
      await client.close()
    }
  })

  it('answers list and discover with the cache fields, over plain HTTP with the new headers', async () => {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'curl', version: '1' },
      'io.modelcontextprotocol/clientCapabilities': {},
    }
    const post = (method: string, headers: Record<string, string> = {}) =>
      fetch(service.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': MODERN,
          'mcp-method': method,
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { _meta: envelope } }),
      })
    const list = await post('tools/list')
    expect(list.status).toBe(200)
    expect(list.headers.get('mcp-session-id')).toBeNull()
    const body = (await list.json()) as { result: { ttlMs: number; cacheScope: string } }
    expect(body.result).toMatchObject({ ttlMs: 0, cacheScope: 'private' })
    const discover = (await (await post('server/discover')).json()) as { result: { supportedVersions: string[] } }
    expect(discover.result.supportedVersions).toContain(MODERN)
    // A Mcp-Method header that disagrees with the body is refused with the revision's own code.
    const mismatch = await post('tools/list', { 'mcp-method': 'tools/call' })
    expect(((await mismatch.json()) as { error: { code: number } }).error.code).toBe(-32020)
  })

  it('runs the calls of one URL in the session named by session_id, statelessly', async () => {
    const record = await service.app.sessions.create(DEFAULT_TENANT)
    const file = path.join(service.config.workspace, 'modern.txt')
    await writeFile(file, 'one\n')
    const client = await connect(`?session_id=${record.sessionId}`)
    try {
      await client.callTool({ name: 'Read', arguments: { file_path: file } })
      const edit = { file_path: file, old_string: 'one', new_string: 'two' }
      const after = await client.callTool({ name: 'Edit', arguments: edit })
      expect(after.isError).toBeFalsy()
    } finally {
      await client.close()
    }
  })

  it('tells a client with an open subscriptions/listen stream when the tool list changes', async () => {
    let changed = 0
    const onChanged = () => {
      changed += 1
    }
    const client = new Client(
      { name: 'modern-listener', version: '1.0.0' },
      {
        versionNegotiation: { mode: 'auto' },
        listChanged: { tools: { autoRefresh: false, debounceMs: 0, onChanged } },
      },
    )
    await client.connect(new StreamableHTTPClientTransport(service.url))
    try {
      // The client opens its listen stream after connect, without waiting for it.
      await vi.waitFor(() => {
        service.app.mcpEndpoint.toolsChanged()
        expect(changed, 'tools list_changed').toBeGreaterThan(0)
      }, REAL_PROCESS_WAIT)
    } finally {
      await client.close()
    }
  })

  it('cancels the run when the client gives up on the call', async () => {
    const client = await connect()
    const statuses: string[] = []
    const stop = service.app.runManager.onEvent((event) => {
      if (event.type === 'run.completed') statuses.push(event.status)
    })
    try {
      const controller = new AbortController()
      const call = client.callTool(
        { name: 'Bash', arguments: { command: 'echo waiting; sleep 20; echo late' } },
        {
          signal: controller.signal,
          onprogress: () => controller.abort('stop'),
        },
      )
      await expect(call).rejects.toThrow(/stop/)
      await expect.poll(() => statuses, { timeout: 15_000 }).toContain('cancelled')
    } finally {
      stop()
      await client.close()
    }
  })
})
