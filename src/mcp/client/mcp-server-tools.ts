import type { Client, Tool as McpToolDefinition } from '@modelcontextprotocol/client'
import type { Logger } from '../../logging/logger.js'
import type { AnyTool } from '../../tool/tool.js'
import { createMcpTool, type McpToolCaller } from './create-mcp-tool.js'
import { API_TOOL_NAME_PATTERN, mcpToolName } from './mcp-tool-name.js'

/** A server that pages forever must not hang the connection. */
const MAX_PAGES = 100

/** Every page of `tools/list`. */
export async function listServerTools(
  client: Client,
  options: { signal: AbortSignal; timeout: number },
): Promise<McpToolDefinition[]> {
  const tools: McpToolDefinition[] = []
  let cursor: string | undefined
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, options)
    tools.push(...result.tools)
    cursor = result.nextCursor
    if (cursor === undefined) break
  }
  return tools
}

export type ToolsSkipped = { tool: string; reason: string }

export type WrapServerToolsOptions = {
  serverName: string
  definitions: readonly McpToolDefinition[]
  caller: McpToolCaller
  onSkipped: (skipped: ToolsSkipped) => void
  logger: Logger
}

function skipReason(name: string, definition: McpToolDefinition, taken: Set<string>): string | undefined {
  // One over-long name would make every Messages API request carrying the pool fail.
  if (!API_TOOL_NAME_PATTERN.test(name)) return `the name ${name} is longer than the API's 64 characters`
  if (taken.has(name)) return `another tool of this server is also named ${name} once normalised`
  if (definition.execution?.taskSupport === 'required') return 'it can only run as an MCP task, which is not supported'
  return undefined
}

/** The server's tools as toolexec tools, minus those the API or this client could not use. */
export function wrapServerTools(options: WrapServerToolsOptions): AnyTool[] {
  const { serverName, caller, logger } = options
  const taken = new Set<string>()
  const tools: AnyTool[] = []
  for (const definition of options.definitions) {
    const name = mcpToolName(serverName, definition.name)
    const reason = skipReason(name, definition, taken)
    if (reason !== undefined) {
      options.onSkipped({ tool: definition.name, reason })
      continue
    }
    taken.add(name)
    const onSchemaError = (message: string) =>
      logger.warn({ server: serverName, tool: definition.name, error: message }, 'MCP tool input schema not compiled')
    tools.push(createMcpTool({ serverName, definition, caller, onSchemaError }))
  }
  return tools
}
