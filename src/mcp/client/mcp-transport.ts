import { type OAuthClientProvider, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type { McpServerConfig } from './mcp-settings-schema.js'

/**
 * The SDK probes a plain StdioClientTransport on a throwaway sibling process, so every
 * connect would start a local server twice; a subclass is probed on its own pipe instead
 * (docs/adr/0352-stdio-probe-in-place.md).
 */
class InPlaceStdioTransport extends StdioClientTransport {}

/**
 * A fresh transport for one connection attempt. A stdio server's stderr is piped (never
 * inherited) and handed over line by line: it goes to the debug log and explains failures.
 */
export function createMcpTransport(
  config: McpServerConfig,
  onStderrLine: (line: string) => void,
  authProvider?: OAuthClientProvider,
): Transport {
  if (config.type === 'http') {
    // With an OAuth provider the SDK discovers, fetches, refreshes and steps up tokens itself (ADR 0420).
    return new StreamableHTTPClientTransport(new URL(config.url), {
      ...(config.headers ? { requestInit: { headers: config.headers } } : {}),
      ...(authProvider ? { authProvider } : {}),
    })
  }
  const transport = new InPlaceStdioTransport({
    command: config.command,
    args: config.args ?? [],
    ...(config.env ? { env: config.env } : {}),
    ...(config.cwd ? { cwd: config.cwd } : {}),
    stderr: 'pipe',
  })
  let pending = ''
  transport.stderr?.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8')
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) if (line.trim() !== '') onStderrLine(line.trimEnd())
    // A server that writes no newline must not grow this buffer without bound.
    if (pending.length > 4096) {
      onStderrLine(pending)
      pending = ''
    }
  })
  return transport
}
