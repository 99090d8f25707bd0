import { hkdfSync, randomBytes } from 'node:crypto'
import { createRequestStateCodec, type RequestStateCodec, type ServerContext } from '@modelcontextprotocol/server'
import type { SecretKey } from '../../secrets/secret-key.js'

/**
 * What an input-required answer to `tools/call` carries to the retry (docs/adr/0354): which call
 * asked, by its tool_use id, and digests of exactly what it asked about. Signed, not encrypted:
 * the client may read it, and it holds nothing the client did not send.
 */
export type McpAskState = {
  v: 1
  /** The tool_use id the retry runs under, so round and retry are one call in the audit trail. */
  toolUseId: string
  tool: string
  /** sha256 of the canonical JSON of the `tools/call` arguments: the retry must send the same. */
  argumentsSha256: string
  /** sha256 of the canonical JSON of the input the permission check saw: the answer covers that input only. */
  inputSha256: string
}

export type McpAskCodec = RequestStateCodec<McpAskState>

/** The HMAC key of the state, derived so it never equals the secret store's AES key (docs/adr/0355). */
function stateKey(secretKey: SecretKey | undefined): Buffer {
  if (!secretKey) return randomBytes(32)
  return Buffer.from(hkdfSync('sha256', secretKey.bytes(), Buffer.alloc(0), 'toolexec/mcp-request-state/v1', 32))
}

/**
 * The codec of the `requestState` toolexec mints for an ask over MCP: HMAC-SHA256 (the SDK's
 * codec) with a key from TOOLEXEC_SECRET_KEY, so every instance verifies what any instance
 * minted; without that key, one random key per process (docs/adr/0355). The state is bound to
 * the caller (`bindingOf`: tenant and toolexec session), and expires with the ask timeout.
 */
export function createMcpAskCodec(options: {
  secretKey: SecretKey | undefined
  ttlMs: number
  bindingOf: (ctx: ServerContext) => string
}): McpAskCodec {
  return createRequestStateCodec<McpAskState>({
    key: stateKey(options.secretKey),
    ttlSeconds: Math.max(1, Math.ceil(options.ttlMs / 1000)),
    bind: options.bindingOf,
  })
}
