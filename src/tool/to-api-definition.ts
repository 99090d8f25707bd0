import { z } from 'zod'
import type { AnyTool, PromptOptions } from './tool.js'

/** A tool as the Anthropic Messages API takes it in `tools`. */
export type ApiToolDefinition = {
  name: string
  description: string
  input_schema: { [key: string]: unknown }
  strict?: boolean
  defer_loading?: boolean
}

/**
 * A Messages API client tool as the API takes it: its type and name (and options such as the
 * text editor's `max_characters`), no description or schema: the model already knows them.
 */
export type ClientToolDefinition = { type: string; name: string; [option: string]: unknown }

/** The Messages API form of a client tool; undefined for every other tool. */
export function toClientToolDefinition(tool: AnyTool): ClientToolDefinition | undefined {
  if (tool.apiType === undefined) return undefined
  return { type: tool.apiType, name: tool.name, ...tool.apiOptions }
}

const schemaCache = new WeakMap<object, { [key: string]: unknown }>()

/** zod → JSON Schema once per schema; MCP tools keep their server's JSON Schema verbatim. */
function inputJsonSchemaOf(tool: AnyTool): { [key: string]: unknown } {
  if (tool.inputJSONSchema) return tool.inputJSONSchema
  const cached = schemaCache.get(tool.inputSchema)
  if (cached) return cached
  const { $schema: _ignored, ...schema } = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' })
  schemaCache.set(tool.inputSchema, schema)
  return schema
}

/** Deferred tools are sent with `defer_loading` and found through ToolSearch. */
export function isDeferred(tool: AnyTool): boolean {
  return tool.shouldDefer === true && tool.alwaysLoad !== true
}

export async function toApiToolDefinition(tool: AnyTool, options: PromptOptions): Promise<ApiToolDefinition> {
  return {
    name: tool.name,
    description: await tool.prompt(options),
    input_schema: inputJsonSchemaOf(tool),
    ...(tool.strict ? { strict: true } : {}),
    ...(isDeferred(tool) ? { defer_loading: true } : {}),
  }
}

export function toApiToolDefinitions(tools: readonly AnyTool[], options: PromptOptions): Promise<ApiToolDefinition[]> {
  return Promise.all(tools.map((tool) => toApiToolDefinition(tool, options)))
}
