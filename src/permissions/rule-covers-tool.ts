import type { RuleFamily } from '../tool/tool.js'

/** What the rules need to know of a tool: its names and the family of rules that reach it. */
export type RuledTool = { name: string; aliases?: readonly string[] | undefined; ruleFamily: RuleFamily }

/** The family rules of these names reach beyond the tool so named (docs/design.md §7). */
const FAMILY_RULES: Readonly<Record<string, RuleFamily>> = { Read: 'read', Edit: 'edit', Bash: 'shell' }

/** `mcp__srv__tool` → `srv`; undefined for built-ins. */
function mcpServerOf(toolName: string): string | undefined {
  const parts = toolName.split('__')
  return parts[0] === 'mcp' && parts.length >= 3 && parts[1] !== '' ? parts[1] : undefined
}

/** `mcp__srv` and `mcp__srv__*` name a whole server; the server, else undefined. */
function mcpServerRuleOf(ruleToolName: string): string | undefined {
  const parts = ruleToolName.split('__')
  if (parts[0] !== 'mcp' || parts[1] === undefined || parts[1] === '') return undefined
  if (parts.length === 2) return parts[1]
  if (parts.length === 3 && parts[2] === '*') return parts[1]
  return undefined
}

function namesOf(tool: RuledTool): string[] {
  return [tool.name, ...(tool.aliases ?? [])]
}

/**
 * Does a rule naming `ruleToolName` apply to this tool? Exact name or alias; `Read`, `Edit` and
 * `Bash` also cover every tool of their family (the tool's `ruleFamily`: Glob and Grep read,
 * Write and the text editors edit, the API's bash is a shell); `mcp__srv` and `mcp__srv__*` cover
 * every tool of that server.
 */
export function ruleCoversTool(ruleToolName: string, tool: RuledTool): boolean {
  const names = namesOf(tool)
  if (names.includes(ruleToolName)) return true
  if (tool.ruleFamily !== 'none' && FAMILY_RULES[ruleToolName] === tool.ruleFamily) return true
  const server = mcpServerRuleOf(ruleToolName)
  return server !== undefined && names.some((name) => mcpServerOf(name) === server)
}
