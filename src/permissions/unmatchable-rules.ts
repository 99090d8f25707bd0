import { didYouMean } from '../errors/did-you-mean.js'
import { mcpToolName } from '../mcp/client/mcp-tool-name.js'
import { PermissionRuleSyntaxError, parsePermissionRule } from './permission-rule.js'
import type { PermissionsSettings } from './permissions-settings-schema.js'
import { type RuledTool, ruleCoversTool } from './rule-covers-tool.js'

type CandidateTool = RuledTool & { getPath?: unknown; deniedAlsoBy?: Readonly<Record<string, unknown>> | undefined }

/** A rule that can never match, and why, in words an operator can act on. */
export type UnmatchableRule = { rule: string; problem: string }

/**
 * The allow, deny and ask rules that can never match in this pool (docs/adr/0287): a rule naming
 * no tool (`Bsh(ls)`, `bash(rm:*)` where only Claude Code's `Bash` is offered) — a typo'd deny
 * would let the command run — and a rule with content for tools that take none (`mcp__x__y(foo)`,
 * `TodoWrite(x)`). Rules for a configured MCP server name a tool, since its tools may arrive later.
 */
export function unmatchableRules(
  permissions: Partial<Pick<PermissionsSettings, 'allow' | 'deny' | 'ask'>> | undefined,
  tools: readonly CandidateTool[],
  mcpServers: readonly string[],
): UnmatchableRule[] {
  const serverPrefixes = mcpServers.map((server) => mcpToolName(server, ''))
  const rules = [...(permissions?.allow ?? []), ...(permissions?.deny ?? []), ...(permissions?.ask ?? [])]
  return rules.flatMap((rule): UnmatchableRule[] => {
    const parsed = parseOrUndefined(rule)
    // A rule that does not parse is refused with its own syntax error where it is stored.
    if (parsed === undefined) return []
    const { toolName, ruleContent } = parsed
    // `Read(...)` and `Write(...)` deny and ask rules also reach the text editors (docs/adr/0235).
    const covered = tools.filter(
      (tool) => ruleCoversTool(toolName, tool) || tool.deniedAlsoBy?.[toolName] !== undefined,
    )
    const forServer = serverPrefixes.some((prefix) => `${toolName}__`.startsWith(prefix))
    if (covered.length === 0 && !forServer) {
      const meant = didYouMean(toolName, [...new Set(tools.flatMap((tool) => [tool.name, ...(tool.aliases ?? [])]))])
      const hint = meant === undefined ? '' : `: did you mean ${meant}?`
      return [{ rule, problem: `names no tool of this pool (tool names are case-sensitive)${hint}` }]
    }
    const takesContent = (tool: CandidateTool) => tool.ruleFamily === 'shell' || tool.getPath !== undefined
    if (ruleContent !== undefined && (forServer || !covered.some(takesContent))) {
      return [
        {
          rule,
          problem: `${toolName} takes no content: only shell command rules (Bash(...)) and path rules for tools that take a path match inside a call; name the tool alone`,
        },
      ]
    }
    return []
  })
}

/** The problems as one sentence naming each rule, for a 400 or a start-up error. */
export function describeUnmatchableRules(problems: readonly UnmatchableRule[]): string {
  return problems.map(({ rule, problem }) => `permission rule "${rule}" ${problem}`).join('; ')
}

function parseOrUndefined(rule: string) {
  try {
    return parsePermissionRule(rule)
  } catch (error) {
    if (error instanceof PermissionRuleSyntaxError) return undefined
    throw error
  }
}
