import type { ToolPermissionContext } from '../tool/permission-context.js'
import type { AnyTool } from '../tool/tool.js'
import { findBashRule } from './find-bash-rule.js'
import { pathRuleMatches } from './path-rule-matches.js'
import { getRules, type PermissionRule, type PermissionRuleBehavior } from './permission-rule.js'
import type { ResolvedToolPath } from './resolve-tool-path.js'
import { ruleCoversTool } from './rule-covers-tool.js'

/** One call as the rules see it: the tool, its observable input, the cwd and its resolved path. */
export type RuleSubject = {
  tool: AnyTool
  input: { [key: string]: unknown }
  cwd: string
  /** From resolveToolPath; undefined when the tool names no path. */
  path?: ResolvedToolPath | undefined
}

/**
 * The first rule of `behavior` that applies to this call, operator rules before session rules.
 * Whole-tool rules (`Bash`, `mcp__srv`) match any input. Content rules are Bash command rules
 * for Bash and gitignore-style path rules for tools that name a path; a content rule for a
 * tool with neither matches nothing.
 */
export function findMatchingRule(
  context: ToolPermissionContext,
  subject: RuleSubject,
  behavior: PermissionRuleBehavior,
): PermissionRule | undefined {
  // Deny and ask rules of the tools this call acts like reach it too; their allow rules do not.
  const also = behavior === 'allow' ? undefined : subject.tool.deniedAlsoBy
  const rules = getRules(context, behavior).filter(
    (rule) =>
      ruleCoversTool(rule.value.toolName, subject.tool) || also?.[rule.value.toolName]?.(subject.input) === true,
  )
  const wholeTool = rules.find((rule) => rule.value.ruleContent === undefined)
  if (wholeTool) return wholeTool
  const contentRules = rules.filter((rule) => rule.value.ruleContent !== undefined)
  if (contentRules.length === 0) return undefined
  if (subject.tool.ruleFamily === 'shell') {
    const command = subject.input.command
    return typeof command === 'string' ? findBashRule(contentRules, command, behavior) : undefined
  }
  const target = subject.path
  if (!target) return undefined
  return contentRules.find((rule) =>
    pathRuleMatches(rule.value.ruleContent as string, target.absolute, subject.cwd, target.isDirectory()),
  )
}
