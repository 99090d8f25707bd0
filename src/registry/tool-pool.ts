import type { SessionContext } from '../executor/session-context.js'
import type { ToolPermissionContext } from '../tool/permission-context.js'
import type { ApiToolDefinition } from '../tool/to-api-definition.js'
import type { AnyTool, Tools } from '../tool/tool.js'

export type ToolPoolOptions = {
  /** The registry's pool for a permission context (built-ins, then MCP tools). */
  assemble: (permissionContext: ToolPermissionContext) => Tools | Promise<Tools>
  /** Serialises one tool; `tools` is the whole pool (descriptions may mention siblings). */
  toDefinition: (
    tool: AnyTool,
    options: { permissionContext: ToolPermissionContext; tools: Tools },
  ) => ApiToolDefinition | Promise<ApiToolDefinition>
  /** Registered by tests (and embedders) after the registry's tools; a registry tool of the same name wins. */
  extraTools?: Tools
}

/** The tools a session may use, as the executor needs them and as the API lists them. */
export function createToolPool(options: ToolPoolOptions) {
  const extra = options.extraTools ?? []

  async function toolsFor(context: Pick<SessionContext, 'permissionContext'>): Promise<Tools> {
    const pool = await options.assemble(context.permissionContext)
    const names = new Set(pool.map((tool) => tool.name))
    return [...pool, ...extra.filter((tool) => !names.has(tool.name) && tool.isEnabled())]
  }

  async function definitionsFor(context: Pick<SessionContext, 'permissionContext'>): Promise<ApiToolDefinition[]> {
    const tools = await toolsFor(context)
    return Promise.all(
      tools.map((tool) => options.toDefinition(tool, { permissionContext: context.permissionContext, tools })),
    )
  }

  return { toolsFor, definitionsFor }
}

export type ToolPool = ReturnType<typeof createToolPool>
