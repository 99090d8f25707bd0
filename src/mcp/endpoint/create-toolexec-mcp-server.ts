import { randomUUID } from 'node:crypto'
import { type CallToolResult, type InputRequiredResult, Server } from '@modelcontextprotocol/server'
import type { ToolResultBlock, ToolUseBlock } from '../../messages/content-blocks.js'
import type { PermissionPrompt } from '../../permissions/permission-prompter.js'
import type { BlobInfo } from '../../results/blob-store.js'
import type { ApiToolDefinition } from '../../tool/to-api-definition.js'
import type { McpAskAnswer } from './mcp-ask-prompter.js'
import type { McpAskCodec } from './mcp-ask-state.js'
import { askRoundOf, askTheClient } from './mcp-asks.js'
import { toMcpProgress, toolResultToMcp } from './tool-result-to-mcp.js'

export type ToolexecMcpCallOutcome = {
  runId: string
  result: ToolResultBlock
  blobs: readonly BlobInfo[]
  /** The ask the call raised that the client's user can answer (the result is then the fallback denial). */
  asked?: PermissionPrompt
}

/** What the `/mcp` endpoint needs from the service: the caller's pool, and one call run as a run. */
export type ToolexecMcpBackend = {
  listTools(): Promise<ApiToolDefinition[]>
  /**
   * Runs one tool_use block through the engine (permissions, hooks, budget) and returns its
   * result. `requestId` is the JSON-RPC id, by which an older-revision client cancels the call.
   */
  callTool(
    block: ToolUseBlock,
    options: {
      signal: AbortSignal
      requestId: string | number
      onProgress: (data: unknown) => void
      /** Whether the client can answer an ask as an input request, and its answer on a retry. */
      ask?: { clientCanAnswer: boolean; answer?: McpAskAnswer }
    },
  ): Promise<ToolexecMcpCallOutcome>
}

export const RUN_ID_META_KEY = 'toolexec/run_id'
const BLOBS_META_KEY = 'toolexec/blobs'

/**
 * An MCP server exposing the tool pool: `tools/list` from the pool's API definitions,
 * `tools/call` as a one-block run, with the run's progress forwarded as MCP progress when the
 * client asked for it, and the client's cancellation cancelling the run. One instance serves one
 * HTTP request of either revision (docs/adr/0340-mcp-endpoint-on-sdk-v2.md); the SDK fills the
 * 2026-07-28 fields (`ttlMs: 0`, `cacheScope: 'private'` on the list: the pool is per tenant and
 * changes when an MCP server of ours comes or goes).
 */
export function createToolexecMcpServer(
  backend: ToolexecMcpBackend,
  info: { name: string; version: string },
  codec?: McpAskCodec,
): Server {
  const server = new Server(info, {
    capabilities: { tools: { listChanged: true } },
    // The 2025-era shim would send the ask back over a stream no other request can answer (docs/adr/0356).
    inputRequired: { legacyShim: false },
    ...(codec ? { requestState: { verify: codec.verify } } : {}),
  })

  server.setRequestHandler('tools/list', async () => ({
    tools: (await backend.listTools()).map((definition) => ({
      name: definition.name,
      description: definition.description,
      inputSchema: definition.input_schema as { type: 'object'; [key: string]: unknown },
    })),
  }))

  server.setRequestHandler('tools/call', async (request, ctx): Promise<CallToolResult | InputRequiredResult> => {
    const token = request.params._meta?.progressToken
    const { signal } = ctx.mcpReq
    let count = 0
    const onProgress = (data: unknown) => {
      if (token === undefined || signal.aborted) return
      count += 1
      const params = { progressToken: token, ...toMcpProgress(data, count) }
      // A client that went away is noticed through the abort signal; a lost notification is not an error.
      ctx.mcpReq.notify({ method: 'notifications/progress', params }).catch(() => {})
    }
    const input = request.params.arguments ?? {}
    const round = askRoundOf(ctx, request.params.name, input, codec)
    const block: ToolUseBlock = {
      type: 'tool_use',
      // A retry runs under the tool_use id of the round that asked (docs/adr/0354).
      id: round.answer?.state.toolUseId ?? `toolu_mcp_${randomUUID().replaceAll('-', '')}`,
      name: request.params.name,
      input,
    }
    const ask = { clientCanAnswer: round.clientCanAnswer, ...(round.answer ? { answer: round.answer } : {}) }
    const outcome = await backend.callTool(block, { signal, requestId: ctx.mcpReq.id, onProgress, ask })
    if (outcome.asked && codec) {
      return askTheClient(codec, ctx, { asked: outcome.asked, toolUseId: block.id, arguments: input })
    }
    return {
      ...toolResultToMcp(outcome.result),
      _meta: { [RUN_ID_META_KEY]: outcome.runId, [BLOBS_META_KEY]: outcome.blobs },
    }
  })

  return server
}
