import type { ToolPermissionContext } from '../tool/permission-context.js'
import { getRules, type PermissionRule } from './permission-rule.js'
import { type RuledTool, ruleCoversTool } from './rule-covers-tool.js'

/**
 * The blanket deny rule that removes this tool from the pool, if any: a rule with no content
 * naming the tool (or an alias, or `Read`/`Edit` for the file tools they cover), or an MCP
 * server rule (`mcp__srv`, `mcp__srv__*`). Content rules (`Bash(rm:*)`) never hide a tool.
 */
export function getDenyRuleForTool(context: ToolPermissionContext, tool: RuledTool): PermissionRule | undefined {
  return getRules(context, 'deny').find(
    (rule) => rule.value.ruleContent === undefined && ruleCoversTool(rule.value.toolName, tool),
  )
}

/** The tools the model may see: those no blanket deny rule removes. Order is kept. */
export function filterToolsByDenyRules<T extends RuledTool>(tools: readonly T[], context: ToolPermissionContext): T[] {
  return tools.filter((tool) => !getDenyRuleForTool(context, tool))
}
