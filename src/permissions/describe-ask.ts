import path from 'node:path'
import type { AskHints } from '../events/ask-hints.js'
import type { PermissionRequest } from '../executor/permission-gate.js'
import type { PermissionAsk } from '../tool/permission-result.js'
import { formatPermissionRule } from './permission-rule.js'
import { resolveToolPath } from './resolve-tool-path.js'

/** What the gate adds to an ask: the hints a person judges by, and the rule "allow always" adds. */
export type AskDescription = { hints: AskHints; alwaysRule: string }

const safely = (check: () => boolean | undefined): boolean => {
  try {
    return check() === true
  } catch {
    return false
  }
}

// gitignore pattern characters: the rule "allow always" adds matches this one path, nothing else.
const escapeGlob = (text: string) => text.replace(/[*?[\]!#\\]/g, '\\$&')

/**
 * Describes an ask for the person who answers it (docs/adr/0242-asks-a-person-can-judge.md).
 * The "allow always" rule is the narrowest that allows this call again: a shell command exactly
 * as written, a file tool's one path (rooted at `/`), or else the tool by name.
 */
export async function describeAsk(
  request: PermissionRequest,
  ask: PermissionAsk,
  shellNetwork: boolean,
): Promise<AskDescription> {
  const { tool, input, context } = request
  const hints: AskHints = {
    read_only: safely(() => tool.isReadOnly(input)),
    destructive: safely(() => tool.isDestructive?.(input)),
    asked_by: askedBy(ask),
  }
  if (ask.outsidePath !== undefined) hints.outside_working_directories = [ask.outsidePath]
  if (tool.ruleFamily === 'shell') hints.network = shellNetwork
  const command = input.command
  if (tool.ruleFamily === 'shell' && typeof command === 'string') {
    return { hints, alwaysRule: formatPermissionRule({ toolName: tool.name, ruleContent: command }) }
  }
  const target = await resolveToolPath(tool, input, path.resolve(context.cwd)).catch(() => undefined)
  const alwaysRule =
    target === undefined
      ? tool.name
      : formatPermissionRule({ toolName: tool.name, ruleContent: `/${escapeGlob(target.absolute)}` })
  return { hints, alwaysRule }
}

function askedBy(ask: PermissionAsk): AskHints['asked_by'] {
  const reason = ask.decisionReason
  if (reason?.type === 'rule') return { type: 'rule', rule: reason.rule }
  if (reason?.type === 'hook') return reason.reason ? { type: 'hook', reason: reason.reason } : { type: 'hook' }
  if (reason?.type === 'tool') return { type: 'tool', reason: reason.reason }
  if (reason?.type === 'mode') return { type: 'mode' }
  return { type: 'default' }
}
