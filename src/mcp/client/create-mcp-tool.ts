import type { CallToolResult, Tool as McpToolDefinition } from '@modelcontextprotocol/client'
import { buildTool, deferToPermissionRules } from '../../tool/build-tool.js'
import type { AnyTool, ToolCallProgress } from '../../tool/tool.js'
import { createJsonSchemaInput } from './json-schema-input.js'
import { mapMcpResult } from './map-mcp-result.js'
import { mcpToolName } from './mcp-tool-name.js'

export const MAX_MCP_DESCRIPTION_LENGTH = 2048
const MCP_MAX_RESULT_SIZE_CHARS = 100_000
const TRUNCATION_MARK = '… [truncated]'

/** One `notifications/progress` of a call, as the `data` of a `tool.progress` event. */
type McpProgress = { progress: number; total?: number; message?: string }

export type McpCallOptions = { signal: AbortSignal; onProgress?: (progress: McpProgress) => void }

/** What a tool needs from its server's connection: one `tools/call`, reconnects handled behind it. */
export interface McpToolCaller {
  callTool(toolName: string, input: { [key: string]: unknown }, options: McpCallOptions): Promise<CallToolResult>
}

export type CreateMcpToolOptions = {
  /** The server's key in `mcpServers`. */
  serverName: string
  /** The tool as the server listed it. */
  definition: McpToolDefinition
  caller: McpToolCaller
  /** Told when the server's input schema cannot be compiled (inputs are then only checked to be objects). */
  onSchemaError?: (message: string) => void
}

function truncateDescription(description: string): string {
  if (description.length <= MAX_MCP_DESCRIPTION_LENGTH) return description
  return description.slice(0, MAX_MCP_DESCRIPTION_LENGTH - TRUNCATION_MARK.length) + TRUNCATION_MARK
}

function searchHintFor(serverName: string, definition: McpToolDefinition): string {
  const words = (definition.title ?? definition.name).replace(/[_\-.]+/g, ' ').trim()
  return `${serverName} ${words}`.split(/\s+/).slice(0, 10).join(' ')
}

/**
 * Wraps one tool an MCP server lists as a toolexec Tool: named `mcp__<server>__<tool>`,
 * validated with Ajv against the server's own JSON Schema (also what the API is sent),
 * read-only and concurrency-safe only when the server says `readOnlyHint`, deferred behind
 * ToolSearch unless `_meta['anthropic/alwaysLoad']`. Interrupts cancel it (ADR 0053).
 */
export function createMcpTool(options: CreateMcpToolOptions): AnyTool {
  const { serverName, definition, caller } = options
  const name = mcpToolName(serverName, definition.name)
  const input = createJsonSchemaInput(definition.inputSchema)
  if (input.compileError !== undefined) options.onSchemaError?.(input.compileError)
  const description = truncateDescription(definition.description ?? '')
  const readOnly = definition.annotations?.readOnlyHint === true
  const destructive = definition.annotations?.destructiveHint === true
  const alwaysLoad = definition._meta?.['anthropic/alwaysLoad'] === true
  const displayName = `${serverName} - ${definition.title ?? definition.annotations?.title ?? definition.name} (MCP)`

  return buildTool({
    name,
    // Matched by their own names and `mcp__server` rules, never by Read/Edit/Bash ones.
    ruleFamily: 'none',
    searchHint: searchHintFor(serverName, definition),
    inputSchema: input.schema,
    inputJSONSchema: definition.inputSchema,
    maxResultSizeChars: MCP_MAX_RESULT_SIZE_CHARS,
    checkPermissions: deferToPermissionRules,
    shouldDefer: !alwaysLoad,
    ...(alwaysLoad ? { alwaysLoad: true } : {}),
    description: async () => description,
    prompt: async () => description,
    isConcurrencySafe: () => readOnly,
    isReadOnly: () => readOnly,
    isDestructive: () => destructive,
    interruptBehavior: () => 'cancel' as const,
    userFacingName: () => displayName,
    async call(toolInput, context, _canUseTool, _parentMessage, onProgress?: ToolCallProgress<McpProgress>) {
      const data = await caller.callTool(definition.name, toolInput, {
        signal: context.abortSignal,
        ...(onProgress ? { onProgress } : {}),
      })
      return { data }
    },
    mapToolResult: (data: CallToolResult) => mapMcpResult(data, name),
  })
}
