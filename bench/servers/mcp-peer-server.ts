/**
 * The peer of bench/mcp-peer.ts: the MCP TypeScript SDK's own Streamable HTTP server, stateless
 * (a fresh server and transport per request, as the SDK documents for stateless use) with JSON
 * responses, serving one no-op tool.
 *
 *   PORT=… node --import tsx bench/servers/mcp-peer-server.ts
 */
import { createServer } from 'node:http'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'

function noopServer(): McpServer {
  const server = new McpServer({ name: 'bench-peer', version: '1.0.0' })
  server.registerTool('noop', { description: 'Does nothing' }, async () => ({
    content: [{ type: 'text', text: 'ok' }],
  }))
  return server
}

const http = createServer(async (request, response) => {
  if (request.url === '/healthz') {
    response.end('ok')
    return
  }
  const server = noopServer()
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true })
  response.on('close', () => {
    void transport.close()
    void server.close()
  })
  await server.connect(transport)
  await transport.handleRequest(request, response)
})
http.keepAliveTimeout = 60_000
http.listen(Number(process.env.PORT ?? 0), '127.0.0.1')
