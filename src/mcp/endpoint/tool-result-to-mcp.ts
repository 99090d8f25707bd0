import type { CallToolResult } from '@modelcontextprotocol/server'
import type { ToolResultBlock } from '../../messages/content-blocks.js'

export type McpProgressParams = { progress: number; total?: number; message?: string }

/** Progress text beyond this is cut from the front: the newest output is what a watcher wants. */
const MAX_PROGRESS_MESSAGE = 4000

/**
 * A `tool.progress` payload as MCP progress. Progress that already has MCP's shape (an MCP
 * tool behind us) keeps its numbers; anything else (Bash output) counts calls of `onProgress`
 * so `progress` still increases, with the text as the message.
 */
export function toMcpProgress(data: unknown, count: number): McpProgressParams {
  const fields = data !== null && typeof data === 'object' ? (data as { [key: string]: unknown }) : {}
  if (typeof fields.progress === 'number') {
    return {
      progress: fields.progress,
      ...(typeof fields.total === 'number' ? { total: fields.total } : {}),
      ...(typeof fields.message === 'string' ? { message: fields.message } : {}),
    }
  }
  const text =
    typeof fields.message === 'string'
      ? fields.message
      : typeof fields.output === 'string'
        ? fields.output
        : typeof data === 'string'
          ? data
          : JSON.stringify(data)
  return { progress: count, message: text.length > MAX_PROGRESS_MESSAGE ? text.slice(-MAX_PROGRESS_MESSAGE) : text }
}

/**
 * A tool_result block as an MCP `tools/call` result: text and images map one to one; MCP has no
 * tool reference, so a loaded tool is named in text.
 */
export function toolResultToMcp(result: ToolResultBlock): CallToolResult {
  const content: CallToolResult['content'] =
    typeof result.content === 'string'
      ? [{ type: 'text', text: result.content }]
      : result.content.map((block) =>
          block.type === 'text'
            ? { type: 'text', text: block.text }
            : block.type === 'image'
              ? { type: 'image', data: block.source.data, mimeType: block.source.media_type }
              : { type: 'text', text: `Tool loaded: ${block.tool_name}` },
        )
  return result.is_error ? { content, isError: true } : { content }
}
