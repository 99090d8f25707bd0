import type { VersionNegotiationOptions } from '@modelcontextprotocol/client'

/**
 * The MCP revisions a configured server may be asked to speak (docs/adr/0350-mcp-client-revisions.md):
 * `auto` probes with `server/discover` and falls back to `initialize`; `2026-07-28` insists on
 * the stateless revision; `2025-11-25` skips the probe and runs the `initialize` handshake,
 * which settles on 2025-11-25 or whichever older revision the server offers.
 */
export const MCP_PROTOCOL_SETTINGS = ['auto', '2026-07-28', '2025-11-25'] as const
export type McpProtocolSetting = (typeof MCP_PROTOCOL_SETTINGS)[number]

/** The SDK's negotiation options for one setting; the probe gets the whole connect budget. */
export function versionNegotiation(
  setting: McpProtocolSetting | undefined,
  connectTimeoutMs: number,
): VersionNegotiationOptions {
  const protocol = setting ?? 'auto'
  if (protocol === '2025-11-25') return { mode: 'legacy' }
  return { mode: protocol === 'auto' ? 'auto' : { pin: protocol }, probe: { timeoutMs: connectTimeoutMs } }
}
