import { z } from 'zod'
import { buildTool } from '../../tool/build-tool.js'
import { isDeferred } from '../../tool/to-api-definition.js'
import { searchTools } from './search-tools.js'

const TOOL_SEARCH_TOOL_NAME = 'ToolSearch'
const TOOL_SEARCH_DEFAULT_MAX_RESULTS = 5

const ToolSearchInputSchema = z.strictObject({
  query: z
    .string()
    .describe('Keywords to find tools by name or purpose, or "select:Name1,Name2" to load tools by exact name'),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(50)
    .optional()
    .describe(`How many tools to return at most (default ${TOOL_SEARCH_DEFAULT_MAX_RESULTS})`),
})
export type ToolSearchInput = z.infer<typeof ToolSearchInputSchema>

/** The deferred tools found, by name: the result loads them (the API supplies their definitions). */
export type ToolSearchOutput = {
  query: string
  totalDeferredTools: number
  tools: string[]
}

const PROMPT = `Finds deferred tools and returns their full definitions so you can call them.

Some tools (for example those of MCP servers) are listed by name only until loaded. Search them:
- by keywords describing the capability: "slack message", "github issue" (a leading + makes a word required: "+github create");
- by exact name: "select:mcp__github__create_issue,mcp__slack__post".
Each tool found is loaded with its full definition. Once a tool is returned you may call it like any other tool.`

export const ToolSearchTool = buildTool({
  name: TOOL_SEARCH_TOOL_NAME,
  searchHint: 'find and load deferred tools',
  inputSchema: ToolSearchInputSchema,
  maxResultSizeChars: 100_000,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  description: 'Search for deferred tools',
  prompt: PROMPT,
  async call(input: ToolSearchInput, context) {
    const options = { permissionContext: context.permissionContext, tools: context.tools }
    const deferred = context.tools.filter(isDeferred)
    const found = await searchTools(
      deferred,
      input.query,
      input.max_results ?? TOOL_SEARCH_DEFAULT_MAX_RESULTS,
      (tool) => tool.prompt(options),
    )
    const data: ToolSearchOutput = {
      query: input.query,
      totalDeferredTools: deferred.length,
      tools: found.map((tool) => tool.name),
    }
    return { data }
  },
  mapToolResult(data: ToolSearchOutput) {
    if (data.tools.length === 0) {
      return {
        content: `No deferred tools match "${data.query}" (${data.totalDeferredTools} deferred tools available). Try other keywords or select:Name.`,
      }
    }
    // The API loads a deferred tool only from a tool_reference block in a tool result, and only
    // when the result holds nothing else (docs/adr/0282-tool-search-answers-with-tool-references.md).
    return { content: data.tools.map((name) => ({ type: 'tool_reference' as const, tool_name: name })) }
  },
})
