import { rulesOf, type ToolPermissionContext } from '../permissions/permission-context.js'
import { tryParsePermissionRule } from '../permissions/permission-rule.js'
import { ruleCoversTool } from '../permissions/rule-covers-tool.js'

type NamedTool = { name: string; aliases?: readonly string[] }

/**
 * The blanket deny rule (no content: `Bash`, `mcp__srv`, `mcp__srv__*`) that removes a tool
 * from the pool, if any. Rules with content (`Bash(rm:*)`) deny calls, not the tool.
 */
export function getDenyRuleForTool(permissionContext: ToolPermissionContext, tool: NamedTool): string | undefined {
  return rulesOf(permissionContext.alwaysDenyRules).find((text) => {
    const rule = tryParsePermissionRule(text)
    return rule !== undefined && rule.ruleContent === undefined && ruleCoversTool(rule.toolName, tool)
  })
}

/** Tools a model should never see: applied to built-ins and to MCP tools alike. */
export function filterToolsByDenyRules<T extends NamedTool>(
  tools: readonly T[],
  permissionContext: ToolPermissionContext,
): T[] {
  return tools.filter((tool) => getDenyRuleForTool(permissionContext, tool) === undefined)
}
