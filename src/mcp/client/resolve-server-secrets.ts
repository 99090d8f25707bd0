import { resolveSecretReferences } from '../../secrets/secret-references.js'
import type { McpServerConfig } from './mcp-settings-schema.js'

export type SecretResolver = (name: string) => Promise<string>

async function resolveMap(
  map: { [key: string]: string } | undefined,
  resolve: SecretResolver,
): Promise<{ [key: string]: string } | undefined> {
  if (!map) return undefined
  const entries = await Promise.all(
    Object.entries(map).map(async ([key, value]) => [key, await resolveSecretReferences(value, resolve)] as const),
  )
  return Object.fromEntries(entries)
}

/**
 * The server config with `${secret:NAME}` in its headers (HTTP) or env (stdio) replaced by the
 * values, looked up at each connection attempt so a secret written again is used from the next
 * connection on (docs/adr/0332-secret-references.md). The result lives only as long as the
 * attempt's transport; an unknown name rejects with UnknownSecretError.
 */
export async function resolveServerSecrets(config: McpServerConfig, resolve: SecretResolver): Promise<McpServerConfig> {
  if (config.type === 'http') {
    const headers = await resolveMap(config.headers, resolve)
    return headers === undefined ? config : { ...config, headers }
  }
  const env = await resolveMap(config.env, resolve)
  return env === undefined ? config : { ...config, env }
}
