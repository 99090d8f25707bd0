import { mcpToolName } from '../mcp/client/mcp-tool-name.js'
import { parsePermissionRule } from './permission-rule.js'
import type { PermissionsSettings } from './permissions-settings-schema.js'
import { type RuledTool, ruleCoversTool } from './rule-covers-tool.js'

/**
 * The settings' allow, deny and ask rules that name no tool the service has: most often a typo
 * (`bash(ls:*)`, `Webfetch`) that silently never matches. Rules for a configured MCP server count
 * as naming a tool, since its tools may arrive after start. Reported as a warning at start.
 */
export function rulesWithoutTool(
  permissions: PermissionsSettings | undefined,
  tools: readonly RuledTool[],
  mcpServers: readonly string[],
): string[] {
  const serverPrefixes = mcpServers.map((server) => mcpToolName(server, ''))
  const rules = [...(permissions?.allow ?? []), ...(permissions?.deny ?? []), ...(permissions?.ask ?? [])]
  return rules.filter((rule) => {
    const { toolName } = parsePermissionRule(rule)
    if (tools.some((tool) => ruleCoversTool(toolName, tool))) return false
    return !serverPrefixes.some((prefix) => `${toolName}__`.startsWith(prefix))
  })
}
