import path from 'node:path'
import type { PermissionRequest } from '../executor/permission-gate.js'
import { isInsideAny } from '../paths/is-inside.js'
import { realDirectory } from '../paths/real-directory.js'
import { resolveRealPath } from '../paths/resolve-real-path.js'
import {
  type PathAccess,
  realWorkingDirectories,
  WorkingDirectoryEscapeError,
  workingDirectoriesNowOrLater,
} from '../paths/working-directories.js'
import { effectivePermissionMode } from '../tool/permission-context.js'
import type {
  PermissionAllow,
  PermissionAsk,
  PermissionDecisionReason,
  PermissionDeny,
} from '../tool/permission-result.js'
import type { AnyTool, ToolUseContext } from '../tool/tool.js'
import { bashPathArguments } from './bash-path-arguments.js'
import { findMatchingRule, type RuleSubject } from './find-matching-rule.js'
import { permissionMessages as messages } from './permission-messages.js'
import type { PermissionRule } from './permission-rule.js'
import { resolveToolPath } from './resolve-tool-path.js'
import { RuleMatchWorkExceeded, ruleMatchWorkLimit } from './rule-match-work.js'

/** What the rules say before anyone is asked: allow, deny, or ask an approver. */
export type PermissionCheck = PermissionAllow | PermissionDeny | PermissionAsk

type DecideRequest = Omit<PermissionRequest, 'hookOutcome'> & { hookOutcome?: PermissionRequest['hookOutcome'] }

const ruleReason = (rule: PermissionRule): PermissionDecisionReason => ({
  type: 'rule',
  rule: rule.text,
  source: rule.source,
})

function isReadOnly(tool: AnyTool, input: { [key: string]: unknown }): boolean {
  try {
    return tool.isReadOnly(input) === true
  } catch {
    return false // a tool that cannot tell is treated as writing
  }
}

/** A working directory that left the workspace admits nothing: no path is auto-allowed (docs/adr/0090-working-directories-checked-per-call.md). */
function refusedDirectories(error: unknown): string[] {
  if (error instanceof WorkingDirectoryEscapeError) return []
  throw error
}

/** The real working directories for `access`, at once when they are at hand; a refusal admits nothing. */
function directoriesFor(context: ToolUseContext, access: PathAccess): readonly string[] | Promise<readonly string[]> {
  try {
    const directories = workingDirectoriesNowOrLater(context, access)
    return directories instanceof Promise ? directories.catch(refusedDirectories) : directories
  } catch (error) {
    return refusedDirectories(error)
  }
}

// A read-only Bash command whose paths cannot be read is never auto-allowed.
const UNKNOWN_PATHS = Symbol('unknown paths')

/** The first path a read-only call touches outside the working directories, if any. */
async function pathOutside(
  subject: RuleSubject,
  context: ToolUseContext,
): Promise<string | typeof UNKNOWN_PATHS | undefined> {
  if (subject.path) {
    // The blob directory is resolved only for a path the working directories do not hold
    // (docs/adr/0467-the-blob-directory-is-resolved-when-a-path-needs-it.md).
    const absolute = subject.path.absolute
    // The lists validation made in this turn, taken without a promise (docs/adr/0603).
    const write = directoriesFor(context, 'write')
    if (isInsideAny(write instanceof Promise ? await write : write, absolute)) return undefined
    const read = directoriesFor(context, 'read')
    return isInsideAny(read instanceof Promise ? await read : read, absolute) ? undefined : absolute
  }
  const directories = await realWorkingDirectories(context, 'read').catch(refusedDirectories)
  const command = subject.input.command
  if (subject.tool.ruleFamily !== 'shell' || typeof command !== 'string') return undefined
  const paths = bashPathArguments(command, subject.cwd)
  if (paths === null) return UNKNOWN_PATHS
  for (const candidate of paths) {
    const real = await resolveRealPath(candidate)
    if (!isInsideAny(directories, real)) return candidate
  }
  return undefined
}

/**
 * The rules engine (docs/design.md §7). In order:
 * 1. deny: a deny rule, a blocking or denying PreToolUse hook, the tool's own deny;
 * 2. plan mode denies every call that is not read-only;
 * 3. ask: an ask rule or a hook `ask` (even in bypassPermissions mode);
 * 4. bypassPermissions mode (only while the operator allows it) allows;
 * 5. allow: an allow rule, a hook `allow`, the tool's own allow;
 * 6. no rule: read-only calls inside the working directories (the blob directory included) and,
 *    in acceptEdits mode, Edit/Write inside them are allowed; everything else asks.
 * An ask becomes a deny in dontAsk mode or when the context avoids prompts.
 */
export async function decidePermission(request: DecideRequest): Promise<PermissionCheck> {
  try {
    return await decide(request)
  } catch (error) {
    if (!(error instanceof RuleMatchWorkExceeded)) throw error
    // Too long to judge within the bound: refused, since a deny rule could not be ruled out.
    return {
      behavior: 'deny',
      message: messages.deniedRuleMatchWork(request.tool.name, error.rules, error.characters, ruleMatchWorkLimit()),
      decisionReason: { type: 'other', reason: 'rule matching bound' },
    }
  }
}

async function decide(request: DecideRequest): Promise<PermissionCheck> {
  const { tool, input, context } = request
  const hook = request.hookOutcome ?? {}
  const permissionContext = context.permissionContext
  const mode = effectivePermissionMode(permissionContext)
  const cwd = await realDirectory(path.resolve(context.cwd))
  const subject: RuleSubject = { tool, input, cwd, path: await resolveToolPath(tool, input, cwd) }
  const name = tool.name

  const denyRule = findMatchingRule(permissionContext, subject, 'deny')
  if (denyRule) return { behavior: 'deny', message: messages.deniedByRule(name), decisionReason: ruleReason(denyRule) }
  const hookDenial =
    hook.blockingReason ?? (hook.permissionDecision === 'deny' ? (hook.permissionDecisionReason ?? '') : undefined)
  if (hookDenial !== undefined) {
    return {
      behavior: 'deny',
      message: messages.deniedByHook(name, hookDenial || undefined),
      decisionReason: { type: 'hook', reason: hookDenial },
    }
  }
  const own = await tool.checkPermissions(input, context)
  if (own.behavior === 'deny') return own
  const readOnly = isReadOnly(tool, input)
  if (mode === 'plan' && !readOnly) {
    return { behavior: 'deny', message: messages.deniedInPlanMode(name), decisionReason: { type: 'mode', mode } }
  }

  const finishAsk = (ask: PermissionAsk): PermissionCheck => {
    if (mode === 'dontAsk')
      return { behavior: 'deny', message: messages.deniedDontAsk(name), decisionReason: { type: 'mode', mode } }
    if (permissionContext.shouldAvoidPermissionPrompts) {
      return { behavior: 'deny', message: messages.deniedNoPrompts(name), decisionReason: ask.decisionReason }
    }
    return ask
  }
  const askRule = findMatchingRule(permissionContext, subject, 'ask')
  if (askRule)
    return finishAsk({
      behavior: 'ask',
      message: messages.askByRule(name, askRule.text),
      decisionReason: ruleReason(askRule),
    })
  if (hook.permissionDecision === 'ask') {
    const reason = hook.permissionDecisionReason
    return finishAsk({
      behavior: 'ask',
      message: messages.askByHook(name, reason),
      decisionReason: { type: 'hook', reason },
    })
  }

  if (mode === 'bypassPermissions') return { behavior: 'allow', decisionReason: { type: 'mode', mode } }
  const allowRule = findMatchingRule(permissionContext, subject, 'allow')
  if (allowRule) return { behavior: 'allow', decisionReason: ruleReason(allowRule) }
  if (hook.permissionDecision === 'allow') {
    return { behavior: 'allow', decisionReason: { type: 'hook', reason: hook.permissionDecisionReason } }
  }
  if (own.behavior === 'allow') return own
  if (own.behavior === 'ask') return finishAsk(own)

  const outside = readOnly ? await pathOutside(subject, context) : undefined
  if (readOnly && outside === undefined) {
    return { behavior: 'allow', decisionReason: { type: 'other', reason: 'read-only inside the working directories' } }
  }
  if (mode === 'acceptEdits' && subject.tool.ruleFamily === 'edit' && subject.path) {
    const directories = await realWorkingDirectories(context, 'write').catch(refusedDirectories)
    if (isInsideAny(directories, subject.path.absolute))
      return { behavior: 'allow', decisionReason: { type: 'mode', mode } }
  }
  const message =
    typeof outside === 'string' ? messages.askOutsideWorkingDirectories(name, outside) : messages.askNoRule(name)
  return finishAsk({ behavior: 'ask', message, ...(typeof outside === 'string' ? { outsidePath: outside } : {}) })
}
