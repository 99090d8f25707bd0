import { z } from 'zod'
import { OAuthSettingsSchema } from './oauth/oauth-settings-schema.js'
import { MCP_PROTOCOL_SETTINGS } from './protocol-revision.js'

const StringMapSchema = z.record(z.string(), z.string())

/** Which MCP revision to speak; `auto` when left out (docs/adr/0350-mcp-client-revisions.md). */
const ProtocolSchema = z.enum(MCP_PROTOCOL_SETTINGS, {
  error: () => `protocol must be one of ${MCP_PROTOCOL_SETTINGS.map((value) => `"${value}"`).join(', ')}`,
})

/** A local server spawned as a child process, speaking JSON-RPC over stdin/stdout. */
const McpStdioServerSchema = z.strictObject({
  type: z.literal('stdio'),
  command: z.string().min(1, 'command must not be empty'),
  args: z.array(z.string()).optional(),
  /** Added to a small safe default environment (PATH, HOME, …), not to the service's own. */
  env: StringMapSchema.optional(),
  cwd: z.string().min(1).optional(),
  protocol: ProtocolSchema.optional(),
})

/** A remote server reached over Streamable HTTP, optionally behind OAuth 2.1 (docs/adr/0422-oauth-settings.md). */
const McpHttpServerSchema = z
  .strictObject({
    type: z.literal('http'),
    url: z.string().min(1, 'url must not be empty'),
    headers: StringMapSchema.optional(),
    protocol: ProtocolSchema.optional(),
    oauth: OAuthSettingsSchema.optional(),
  })
  .superRefine((value, context) => {
    // The transport sets Authorization from the OAuth token: a static one could never be sent.
    const fixed = Object.keys(value.headers ?? {}).find((name) => name.toLowerCase() === 'authorization')
    if (value.oauth !== undefined && fixed !== undefined)
      context.addIssue({
        code: 'custom',
        path: ['headers', fixed],
        message: 'an Authorization header cannot be combined with `oauth`: the OAuth access token is sent instead',
      })
  })

function withDefaultType(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  const entry = value as { [key: string]: unknown }
  // Claude Code's settings let stdio servers leave `type` out; normalise so the union can discriminate.
  return entry.type === undefined ? { ...entry, type: 'stdio' } : value
}

const McpServerConfigSchema = z.preprocess(
  withDefaultType,
  z.discriminatedUnion('type', [McpStdioServerSchema, McpHttpServerSchema], {
    error: (issue) =>
      issue.code === 'invalid_union' ? 'MCP server `type` must be "stdio" (or left out) or "http"' : undefined,
  }),
)

/**
 * The `mcpServers` object of the operator settings file, keyed by server name, in the shape
 * Claude Code uses. `${VAR}` and `${VAR:-default}` in command, args, env, cwd, url and headers
 * are expanded from the service's environment when the server is started.
 */
export const McpServersSchema = z.record(z.string().min(1, 'MCP server names must not be empty'), McpServerConfigSchema)

type McpStdioServerConfig = z.infer<typeof McpStdioServerSchema>
type McpHttpServerConfig = z.infer<typeof McpHttpServerSchema>
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>
export type McpServers = z.infer<typeof McpServersSchema>

/** What a caller may write before parsing: stdio servers may leave `type` out. */
type McpServerConfigInput = (Omit<McpStdioServerConfig, 'type'> & { type?: 'stdio' }) | McpHttpServerConfig
export type McpServersInput = { [name: string]: McpServerConfigInput }

export class McpSettingsError extends Error {
  override name = 'McpSettingsError'
}

/**
 * Parses the `mcpServers` settings; a bad entry throws one error naming every bad field as a
 * path (`mcpServers.files.command: command must not be empty`).
 */
export function parseMcpServers(value: unknown): McpServers {
  const result = McpServersSchema.safeParse(value ?? {})
  if (result.success) return result.data
  const lines = result.error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [undefined]
    return keys
      .map((key) => {
        const path = ['mcpServers', ...issue.path, ...(key === undefined ? [] : [key])].map(String).join('.')
        return `  - ${path}: ${issue.message}`
      })
      .join('\n')
  })
  throw new McpSettingsError(`Invalid MCP server settings:\n${lines.join('\n')}`)
}
