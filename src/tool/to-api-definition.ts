import { z } from 'zod'
import { type ClientToolDefinition, ClientToolDefinitionSchema } from './client-tool-definition.js'
import type { AnyTool, PromptOptions } from './tool.js'

/** A tool as the Anthropic Messages API takes it in `tools`. */
export type ApiToolDefinition = {
  name: string
  description: string
  input_schema: ObjectJsonSchema
  strict?: boolean
  defer_loading?: boolean
}

/** The Messages API takes only object schemas for tool input (`Anthropic.Tool.InputSchema`). */
export type ObjectJsonSchema = { type: 'object'; [key: string]: unknown }

/** The Messages API form of a client tool; undefined for every other tool. */
export function toClientToolDefinition(tool: AnyTool): ClientToolDefinition | undefined {
  if (tool.apiType === undefined) return undefined
  // Parsed, not cast: a tool declaring a type or option the API does not know fails loudly here.
  return ClientToolDefinitionSchema.parse({ type: tool.apiType, name: tool.name, ...tool.apiOptions })
}

const schemaCache = new WeakMap<object, ObjectJsonSchema>()

/** zod → JSON Schema once per schema; MCP tools keep their server's JSON Schema verbatim. */
function inputJsonSchemaOf(tool: AnyTool): ObjectJsonSchema {
  if (tool.inputJSONSchema) return tool.inputJSONSchema
  const cached = schemaCache.get(tool.inputSchema)
  if (cached) return cached
  const { $schema: _ignored, ...rest } = z.toJSONSchema(tool.inputSchema, { io: 'input', unrepresentable: 'any' })
  // Every input schema is a zod object, so `type` is already 'object' and keeps its place.
  const schema: ObjectJsonSchema = { ...rest, type: 'object' }
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
