import type { SessionContext } from '../executor/session-context.js'
import type { ClientToolDefinition } from '../tool/client-tool-definition.js'
import type { ToolPermissionContext } from '../tool/permission-context.js'
import { type ApiToolDefinition, toClientToolDefinition } from '../tool/to-api-definition.js'
import type { AnyTool, Tools } from '../tool/tool.js'

export type ToolPoolOptions = {
  /** The registry's pool for a permission context and the session's choices (built-ins, then MCP tools). */
  assemble: (context: PoolContext) => Tools | Promise<Tools>
  /** Serialises one tool; `tools` is the whole pool (descriptions may mention siblings). */
  toDefinition: (
    tool: AnyTool,
    options: { permissionContext: ToolPermissionContext; tools: Tools },
  ) => ApiToolDefinition | Promise<ApiToolDefinition>
  /** Registered by tests (and embedders) after the registry's tools; a registry tool of the same name wins. */
  extraTools?: Tools
  /**
   * A value that changes whenever `assemble` could answer differently for the same context (the
   * MCP servers' tool list): pools are kept per permission context and choice of tools until it does.
   * Absent: every call assembles afresh.
   */
  generation?: () => unknown
}

/** What picks a pool: the permission context, the session's toolsets and editor (absent: the operator's). */
export type PoolContext = Pick<SessionContext, 'permissionContext' | 'toolsets' | 'textEditor'>

/** The tools a session may use, as the executor needs them and as the API lists them. */
export function createToolPool(options: ToolPoolOptions) {
  const extra = options.extraTools ?? []
  // Permission contexts are frozen and built once per change, so one context always maps to the
  // same pool until the generation moves: every run of a session (and every run without one)
  // skips the filter and sort (docs/adr/0172-tool-pool-kept-per-context.md).
  const kept = new WeakMap<ToolPermissionContext, Map<string, { generation: unknown; tools: Tools }>>()

  async function assembleWithExtras(context: PoolContext): Promise<Tools> {
    const pool = await options.assemble(context)
    const names = new Set(pool.map((tool) => tool.name))
    return [...pool, ...extra.filter((tool) => !names.has(tool.name) && tool.isEnabled())]
  }

  async function toolsFor(context: PoolContext): Promise<Tools> {
    if (!options.generation) return assembleWithExtras(context)
    const generation = options.generation()
    const choiceKey = `${context.toolsets === undefined ? '' : context.toolsets.join(',')}|${context.textEditor ?? ''}`
    let byChoice = kept.get(context.permissionContext)
    const hit = byChoice?.get(choiceKey)
    if (hit && hit.generation === generation) return hit.tools
    const tools = await assembleWithExtras(context)
    if (!byChoice) {
      byChoice = new Map()
      kept.set(context.permissionContext, byChoice)
    }
    byChoice.set(choiceKey, { generation, tools })
    return tools
  }

  /** Every tool with its description and JSON Schema: what an MCP client needs. */
  async function schemaDefinitionsFor(context: PoolContext): Promise<ApiToolDefinition[]> {
    const tools = await toolsFor(context)
    return Promise.all(
      tools.map((tool) => options.toDefinition(tool, { permissionContext: context.permissionContext, tools })),
    )
  }

  /** As a Messages request's `tools`: client tools in the API's own form, the rest with schemas. */
  async function definitionsFor(context: PoolContext): Promise<(ApiToolDefinition | ClientToolDefinition)[]> {
    const tools = await toolsFor(context)
    return Promise.all(
      tools.map(
        (tool) =>
          toClientToolDefinition(tool) ??
          options.toDefinition(tool, { permissionContext: context.permissionContext, tools }),
      ),
    )
  }

  return { toolsFor, definitionsFor, schemaDefinitionsFor }
}

export type ToolPool = ReturnType<typeof createToolPool>
