// Pins Streamable HTTP servers: headers (with ${VAR} expansion) reach the server, and a server restart that forgets the session is survived.
import { randomUUID } from 'node:crypto'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createMcpManager, type McpManager } from '../../src/mcp/client/mcp-manager.js'
import { CLIENT_INFO, findTool, runTool } from './mcp-test-helpers.js'

/** `${NAME}` as the settings file spells it. */
const ref = (name: string) => `\${${name}}`

type Fixture = {
  url: string
  authorizations: string[]
  refused: () => number
  forgetSessions(): void
  close(): Promise<void>
}

function mcpServer(): Server {
  const server = new Server({ name: 'http-fixture', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: [{ name: 'shout', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }],
  }))
  server.setRequestHandler(CallToolRequestSchema, (request) => ({
    content: [{ type: 'text', text: String(request.params.arguments?.text).toUpperCase() }],
  }))
  return server
}

async function startFixture(): Promise<Fixture> {
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const authorizations: string[] = []
  let refused = 0
  const http: HttpServer = createServer(async (request, response) => {
    if (request.headers.authorization !== 'Bearer s3cret') {
      refused += 1
      response.writeHead(401).end()
      return
    }
    authorizations.push(request.headers.authorization)
    const sessionId = request.headers['mcp-session-id']
    let transport = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined
    if (!transport) {
      if (sessionId !== undefined) {
        response.writeHead(404, { 'content-type': 'application/json' })
        response.end(
          JSON.stringify({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null }),
        )
        return
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: randomUUID,
        onsessioninitialized: (id) => {
          sessions.set(id, created)
        },
      })
      await mcpServer().connect(created)
      transport = created
    }
    await transport.handleRequest(request, response)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    refused: () => refused,
    forgetSessions: () => sessions.clear(),
    close: async () => {
      for (const transport of sessions.values()) await transport.close()
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    },
  }
}

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function setup(token: string): Promise<{ fixture: Fixture; manager: McpManager }> {
  const fixture = await startFixture()
  cleanups.push(fixture.close)
  const manager = createMcpManager({
    servers: { remote: { type: 'http', url: fixture.url, headers: { Authorization: `Bearer ${ref('MCP_TOKEN')}` } } },
    clientInfo: CLIENT_INFO,
    environment: { MCP_TOKEN: token },
    retry: { initialDelayMs: 10 },
  })
  cleanups.push(manager.close)
  await manager.ready()
  return { fixture, manager }
}

describe('Streamable HTTP servers', () => {
  it('sends the configured headers, with variables expanded, and calls tools', async () => {
    const { fixture, manager } = await setup('s3cret')
    expect(manager.states()[0]).toMatchObject({ name: 'remote', type: 'http', status: 'connected', toolCount: 1 })
    expect(await runTool(findTool(manager.tools(), 'mcp__remote__shout'), { text: 'hi' })).toEqual({ content: 'HI' })
    expect(fixture.authorizations.length).toBeGreaterThan(0)
  })

  it('reconnects and retries once when a restarted server no longer knows the session', async () => {
    const { fixture, manager } = await setup('s3cret')
    fixture.forgetSessions()
    expect(await runTool(findTool(manager.tools(), 'mcp__remote__shout'), { text: 'again' })).toEqual({
      content: 'AGAIN',
    })
    expect(manager.states()[0]).toMatchObject({ status: 'connected', lastError: expect.stringContaining('404') })
  })

  it('fails at once, without retrying, when the server refuses the credentials', async () => {
    const { fixture, manager } = await setup('wrong')
    expect(manager.states()[0]).toMatchObject({ status: 'failed', lastError: expect.stringContaining('HTTP 401') })
    expect(fixture.refused()).toBe(1)
    expect(manager.tools()).toEqual([])
  })
})
