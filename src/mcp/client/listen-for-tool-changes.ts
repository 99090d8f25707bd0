import type { Client, McpSubscription } from '@modelcontextprotocol/client'
import { messageOf } from './mcp-errors.js'

/**
 * A 2026-07-28 server sends no unsolicited notifications: list_changed arrives on a
 * `subscriptions/listen` stream, dispatched to the same handler as on an older session
 * (docs/adr/0351-tool-changes-on-the-stateless-revision.md). None for an older session or a
 * server that does not announce list changes; a failed subscription is reported, not fatal.
 */
export async function listenForToolChanges(
  from: Client,
  options: { signal: AbortSignal; timeout: number; onFailure: (message: string) => void },
): Promise<McpSubscription | undefined> {
  if (from.getProtocolEra() !== 'modern' || !from.getServerCapabilities()?.tools?.listChanged) return undefined
  try {
    return await from.listen({ toolsListChanged: true }, { signal: options.signal, timeout: options.timeout })
  } catch (error) {
    options.onFailure(messageOf(error))
    return undefined
  }
}
