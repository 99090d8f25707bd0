import { randomUUID } from 'node:crypto'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, type CallToolResult, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { ToolResultBlock, ToolUseBlock } from '../../messages/content-blocks.js'
import type { BlobInfo } from '../../results/blob-store.js'
import type { ApiToolDefinition } from '../../tool/to-api-definition.js'
import { toMcpProgress, toolResultToMcp } from './tool-result-to-mcp.js'

export type ToolexecMcpCallOutcome = { runId: string; result: ToolResultBlock; blobs: readonly BlobInfo[] }

/** What the `/mcp` endpoint needs from the service: the caller's pool, and one call run as a run. */
export type ToolexecMcpBackend = {
  listTools(): Promise<ApiToolDefinition[]>
  /** Runs one tool_use block through the engine (permissions, hooks, budget) and returns its result. */
  callTool(
    block: ToolUseBlock,
    options: { signal: AbortSignal; onProgress: (data: unknown) => void },
  ): Promise<ToolexecMcpCallOutcome>
}

export const RUN_ID_META_KEY = 'toolexec/run_id'
const BLOBS_META_KEY = 'toolexec/blobs'

/**
 * An MCP server exposing the tool pool: `tools/list` from the pool's API definitions,
 * `tools/call` as a one-block run, with the run's progress forwarded as MCP progress when the
 * client asked for it, and the client's cancellation cancelling the run.
 */
export function createToolexecMcpServer(backend: ToolexecMcpBackend, info: { name: string; version: string }): Server {
  const server = new Server(info, { capabilities: { tools: { listChanged: true } } })

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await backend.listTools()).map((definition) => ({
      name: definition.name,
      description: definition.description,
      inputSchema: definition.input_schema,
    })),
  }))

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const token = request.params._meta?.progressToken
    let count = 0
    const onProgress = (data: unknown) => {
      if (token === undefined || extra.signal.aborted) return
      count += 1
      const params = { progressToken: token, ...toMcpProgress(data, count) }
      // A client that went away is noticed through the abort signal; a lost notification is not an error.
      extra.sendNotification({ method: 'notifications/progress', params }).catch(() => {})
    }
    const block: ToolUseBlock = {
      type: 'tool_use',
      id: `toolu_mcp_${randomUUID().replaceAll('-', '')}`,
      name: request.params.name,
      input: request.params.arguments ?? {},
    }
    const outcome = await backend.callTool(block, { signal: extra.signal, onProgress })
    return {
      ...toolResultToMcp(outcome.result),
      _meta: { [RUN_ID_META_KEY]: outcome.runId, [BLOBS_META_KEY]: outcome.blobs },
    }
  })

  return server
}
