import type { DeepImmutable } from '../tool/deep-immutable.js'
import {
  RULE_SOURCES,
  type RuleSource,
  type RulesBySource,
  type ToolPermissionContext,
} from '../tool/permission-context.js'

/** `Bash(npm run test:*)` → `{ toolName: 'Bash', ruleContent: 'npm run test:*' }`; `Bash` has no content. */
export type PermissionRuleValue = { toolName: string; ruleContent?: string }

export type PermissionRuleBehavior = 'allow' | 'deny' | 'ask'

/** One parsed rule with where it came from and the text the operator or session wrote. */
export type PermissionRule = {
  source: RuleSource
  behavior: PermissionRuleBehavior
  value: PermissionRuleValue
  text: string
}

export class PermissionRuleSyntaxError extends Error {
  override name = 'PermissionRuleSyntaxError'
  constructor(
    readonly rule: string,
    reason: string,
  ) {
    super(`Invalid permission rule ${JSON.stringify(rule)}: ${reason}`)
  }
}

/**
 * Caps on one rule (docs/adr/0096-bash-wildcards-without-regular-expressions.md): matching is
 * linear anyway; the caps keep a session's rules small enough to check on every call.
 */
export const MAX_RULE_LENGTH = 1000
const MAX_RULE_STARS = 32

function countStars(text: string): number {
  let stars = 0
  for (const char of text) if (char === '*') stars++
  return stars
}

// Tool names as the registry spells them; a trailing `__*` is the MCP "whole server" form.
const TOOL_NAME = /^[A-Za-z0-9_-]+(__\*)?$/

function isEscaped(text: string, index: number): boolean {
  let backslashes = 0
  for (let at = index - 1; at >= 0 && text[at] === '\\'; at--) backslashes++
  return backslashes % 2 === 1
}

function unescapeContent(content: string): string {
  return content.replace(/\\([()\\])/g, '$1')
}

/**
 * Parses `Tool` or `Tool(content)`. Inside the content `\(`, `\)` and `\\` stand for the
 * characters themselves. Empty content and `*` mean the whole tool, like a bare name.
 * Throws PermissionRuleSyntaxError naming the rule, so settings can be rejected at load.
 */
export function parsePermissionRule(text: string): PermissionRuleValue {
  const rule = text.trim()
  if (rule.length > MAX_RULE_LENGTH) {
    throw new PermissionRuleSyntaxError(rule.slice(0, 40), `a rule is at most ${MAX_RULE_LENGTH} characters long`)
  }
  if (countStars(rule) > MAX_RULE_STARS) {
    throw new PermissionRuleSyntaxError(text, `a rule has at most ${MAX_RULE_STARS} \`*\` wildcards`)
  }
  let open = -1
  for (let index = 0; index < rule.length && open === -1; index++) {
    if (rule[index] === '(' && !isEscaped(rule, index)) open = index
  }
  if (open === -1) {
    if (rule.includes(')')) throw new PermissionRuleSyntaxError(text, 'a `)` without a `(`')
    if (!TOOL_NAME.test(rule)) throw new PermissionRuleSyntaxError(text, 'the tool name must match [A-Za-z0-9_-]+')
    return { toolName: rule }
  }
  const toolName = rule.slice(0, open)
  if (!TOOL_NAME.test(toolName) || toolName.endsWith('__*')) {
    throw new PermissionRuleSyntaxError(text, 'the tool name before `(` must match [A-Za-z0-9_-]+')
  }
  if (!rule.endsWith(')') || isEscaped(rule, rule.length - 1) || rule.length - 1 === open) {
    throw new PermissionRuleSyntaxError(text, 'the content must end with an unescaped `)`')
  }
  const content = unescapeContent(rule.slice(open + 1, -1))
  if (content.trim() === '' || content.trim() === '*') return { toolName }
  return { toolName, ruleContent: content }
}

/** The inverse of parsePermissionRule: parentheses and backslashes in content are escaped. */
export function formatPermissionRule(value: PermissionRuleValue): string {
  if (value.ruleContent === undefined) return value.toolName
  return `${value.toolName}(${value.ruleContent.replace(/[()\\]/g, '\\$&')})`
}

/** Same as parsePermissionRule but returns undefined instead of throwing. */
function tryParsePermissionRule(text: string): PermissionRuleValue | undefined {
  try {
    return parsePermissionRule(text)
  } catch {
    return undefined
  }
}

/** Every rule string that does not parse, with the reason; empty when all are valid. */
export function findInvalidRules(rules: DeepImmutable<RulesBySource>): PermissionRuleSyntaxError[] {
  const errors: PermissionRuleSyntaxError[] = []
  for (const source of RULE_SOURCES) {
    for (const text of rules[source] ?? []) {
      try {
        parsePermissionRule(text)
      } catch (error) {
        if (error instanceof PermissionRuleSyntaxError) errors.push(error)
        else throw error
      }
    }
  }
  return errors
}

type ParsedRules = Record<PermissionRuleBehavior, PermissionRule[]>

// Contexts are frozen, so the parse of one context's rules can be cached for its lifetime.
const parsedRulesCache = new WeakMap<ToolPermissionContext, ParsedRules>()

function parseBySource(rules: DeepImmutable<RulesBySource>, behavior: PermissionRuleBehavior): PermissionRule[] {
  return RULE_SOURCES.flatMap((source) =>
    (rules[source] ?? []).flatMap((text) => {
      // Invalid rules are rejected where rules enter (settings, sessions); here they match nothing.
      const value = tryParsePermissionRule(text)
      return value ? [{ source, behavior, value, text }] : []
    }),
  )
}

/** The parsed rules of one behaviour, operator rules first, then session, then request. */
export function getRules(context: ToolPermissionContext, behavior: PermissionRuleBehavior): PermissionRule[] {
  let parsed = parsedRulesCache.get(context)
  if (!parsed) {
    parsed = {
      allow: parseBySource(context.alwaysAllowRules, 'allow'),
      deny: parseBySource(context.alwaysDenyRules, 'deny'),
      ask: parseBySource(context.alwaysAskRules, 'ask'),
    }
    parsedRulesCache.set(context, parsed)
  }
  return parsed[behavior]
}
