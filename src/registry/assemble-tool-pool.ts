import { filterToolsByDenyRules } from '../permissions/filter-tools-by-deny-rules.js'
import type { ToolPermissionContext } from '../tool/permission-context.js'
import type { AnyTool, Tools } from '../tool/tool.js'

export type GetToolsOptions = {
  /** Tier 1: every built-in this build has (see getAllBaseTools). */
  baseTools: Tools
  simple?: boolean
}

/** Tier 2: simple mode (the tools that say `inSimpleMode`), blanket deny rules, then each tool's own `isEnabled()` veto. */
export function getTools(permissionContext: ToolPermissionContext, options: GetToolsOptions): AnyTool[] {
  const candidates = options.simple ? options.baseTools.filter((tool) => tool.inSimpleMode) : [...options.baseTools]
  return filterToolsByDenyRules(candidates, permissionContext).filter((tool) => tool.isEnabled())
}

const byName = (a: AnyTool, b: AnyTool) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

/**
 * Tier 3: built-ins sorted by name, then allowed MCP tools sorted by name — two groups, so adding
 * an MCP tool never reorders the built-in prefix (prompt-cache stability). On a name clash the
 * built-in wins.
 */
export function assembleToolPool(
  permissionContext: ToolPermissionContext,
  mcpTools: Tools,
  options: GetToolsOptions,
): AnyTool[] {
  const builtIns = getTools(permissionContext, options).sort(byName)
  const mcp = filterToolsByDenyRules([...mcpTools], permissionContext)
    .filter((tool) => tool.isEnabled())
    .sort(byName)
  const seen = new Set<string>()
  return [...builtIns, ...mcp].filter((tool) => {
    if (seen.has(tool.name)) return false
    seen.add(tool.name)
    return true
  })
}
