import { Client, type Implementation } from '@modelcontextprotocol/client'
import { type McpProtocolSetting, versionNegotiation } from './protocol-revision.js'

export type SdkClientOptions = {
  clientInfo: Implementation
  protocol: McpProtocolSetting | undefined
  connectTimeoutMs: number
  onToolsListChanged: () => void
}

/**
 * The SDK client one connection attempt uses. It declares form elicitation and answers every
 * elicitation `cancel`: toolexec has nobody behind a remote server's question, and a declared
 * answer lets a 2026-07-28 server's multi-round-trip call finish (the SDK retries echoing its
 * `requestState`) where no handler would fail it (docs/adr/0426-mcp-client-cancels-elicitation.md).
 * Sampling and roots stay undeclared: a server that asks for them gets the SDK's clear error.
 */
export function createSdkClient(options: SdkClientOptions): Client {
  const client = new Client(options.clientInfo, {
    capabilities: { elicitation: { form: {} } },
    versionNegotiation: versionNegotiation(options.protocol, options.connectTimeoutMs),
  })
  client.setRequestHandler('elicitation/create', async () => ({ action: 'cancel' as const }))
  client.setNotificationHandler('notifications/tools/list_changed', options.onToolsListChanged)
  return client
}
