// Pins ToolSearch: only deferred tools are found, by keywords or `select:`, and the result loads
// them as `tool_reference` blocks, the one form the Messages API loads a deferred tool from.

import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../../src/tool/build-tool.js'
import type { AnyTool } from '../../../src/tool/tool.js'
import { type ToolSearchOutput, ToolSearchTool } from '../../../src/tools/tool-search/tool-search-tool.js'
import { createTestContext } from '../../helpers/tool-context.js'
import { runTool } from '../helpers.js'

function fakeTool(name: string, description: string, extra: Partial<AnyTool> = {}): AnyTool {
  return buildTool({
    name,
    inputSchema: z.strictObject({ text: z.string().describe('Text') }),
    maxResultSizeChars: 1000,
    description: async () => description,
    prompt: async () => description,
    call: async () => ({ data: 'ok' }),
    ...extra,
  }) as AnyTool
}

const tools: AnyTool[] = [
  fakeTool('mcp__slack__post_message', 'Post a message to a Slack channel', { shouldDefer: true }),
  fakeTool('mcp__github__create_issue', 'Create an issue in a GitHub repository', {
    shouldDefer: true,
    searchHint: 'open bug ticket',
  }),
  fakeTool('mcp__github__list_issues', 'List issues of a repository', {
    shouldDefer: true,
    inputJSONSchema: { type: 'object', properties: { repo: { type: 'string' } } },
  }),
  fakeTool('mcp__always__message', 'Message always loaded', { shouldDefer: true, alwaysLoad: true }),
  fakeTool('LoadedMessageTool', 'A message tool that is not deferred'),
]

async function search(input: object): Promise<ToolSearchOutput> {
  const context = createTestContext({ cwd: '/tmp', blobRoot: '/tmp/toolexec-search-blobs', tools })
  const result = await runTool(ToolSearchTool, input, context)
  if (!result.ok) throw new Error(result.message)
  return result.data as ToolSearchOutput
}

describe('ToolSearch', () => {
  it('finds deferred tools by keyword, never loaded or always-loaded ones', async () => {
    const found = await search({ query: 'message' })
    expect(found.tools).toEqual(['mcp__slack__post_message'])
    expect(found.totalDeferredTools).toBe(3)
  })

  it('ranks name matches first and honours required terms and max_results', async () => {
    expect((await search({ query: 'github issue' })).tools).toEqual([
      'mcp__github__create_issue',
      'mcp__github__list_issues',
    ])
    expect((await search({ query: '+create issue' })).tools).toEqual(['mcp__github__create_issue'])
    expect((await search({ query: 'bug ticket' })).tools).toEqual(['mcp__github__create_issue'])
    expect((await search({ query: 'issue', max_results: 1 })).tools).toHaveLength(1)
  })

  it('selects exact names, in order, and answers with one tool_reference block per tool', async () => {
    const found = await search({ query: 'select:mcp__github__list_issues,mcp__slack__post_message,Missing' })
    expect(found.tools).toEqual(['mcp__github__list_issues', 'mcp__slack__post_message'])
    expect(ToolSearchTool.mapToolResult(found).content).toEqual([
      { type: 'tool_reference', tool_name: 'mcp__github__list_issues' },
      { type: 'tool_reference', tool_name: 'mcp__slack__post_message' },
    ])
  })

  it('says so when nothing matches', async () => {
    const found = await search({ query: 'nonexistentcapability' })
    expect(ToolSearchTool.mapToolResult(found).content).toContain('No deferred tools match "nonexistentcapability"')
  })
})
