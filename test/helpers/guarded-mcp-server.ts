import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'

/** A listening MCP server that answers only `Authorization: Bearer <token>`, and what it was sent. */
export type GuardedMcpServer = {
  url: string
  /** The Authorization header of every request, in order (`"undefined"` when there was none). */
  seen: string[]
  close(): Promise<void>
}

/**
 * A stateless Streamable HTTP MCP server with one tool (`ping` → `pong`) that refuses with 401
 * any request without `Bearer token`: what a remote server behind a static credential looks
 * like to the MCP client (the secrets tests resolve that credential from `${secret:NAME}`).
 */
export async function startGuardedMcpServer(token: string): Promise<GuardedMcpServer> {
  const seen: string[] = []
  const http = createServer(async (request, response) => {
    seen.push(String(request.headers.authorization))
    if (request.headers.authorization !== `Bearer ${token}`) return void response.writeHead(401).end()
    const server = new Server({ name: 'guarded', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'ping', inputSchema: { type: 'object', properties: {} } }],
    }))
    server.setRequestHandler(CallToolRequestSchema, () => ({ content: [{ type: 'text', text: 'pong' }] }))
    const transport = new StreamableHTTPServerTransport({})
    await server.connect(transport)
    response.on('close', () => void transport.close())
    await transport.handleRequest(request, response)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    close: async () => {
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    },
  }
}
