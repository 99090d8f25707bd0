import { type DeepImmutable, deepFreeze } from './deep-immutable.js'

export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'bypassPermissions', 'dontAsk'] as const
export type PermissionMode = (typeof PERMISSION_MODES)[number]

/** Where a rule came from. Operator rules come from the settings file and always win on deny. */
export const RULE_SOURCES = ['operatorSettings', 'session', 'request'] as const
export type RuleSource = (typeof RULE_SOURCES)[number]

/** Rule strings (`Bash(npm run test:*)`, `Read(src/**)`, `mcp__srv`) grouped by source. */
export type RulesBySource = Partial<Record<RuleSource, string[]>>

export type ToolPermissionContext = DeepImmutable<{
  mode: PermissionMode
  /** Absolute directories besides the session cwd where files may be touched. */
  additionalWorkingDirectories: string[]
  alwaysAllowRules: RulesBySource
  alwaysDenyRules: RulesBySource
  alwaysAskRules: RulesBySource
  isBypassPermissionsModeAvailable: boolean
  /** Background callers with nobody to ask: every ask becomes a deny. */
  shouldAvoidPermissionPrompts?: boolean
}>

type PermissionContextInput = {
  mode?: PermissionMode
  additionalWorkingDirectories?: readonly string[]
  alwaysAllowRules?: RulesBySource
  alwaysDenyRules?: RulesBySource
  alwaysAskRules?: RulesBySource
  isBypassPermissionsModeAvailable?: boolean
  shouldAvoidPermissionPrompts?: boolean
}

/** A copy of each source's rule list: the context never shares an array with its input. */
function copyRules(rules: RulesBySource | undefined): RulesBySource {
  const copy: RulesBySource = {}
  if (rules === undefined) return copy
  for (const [source, values] of Object.entries(rules) as [RuleSource, string[] | undefined][])
    if (values !== undefined) copy[source] = [...values]
  return copy
}

/**
 * Builds a frozen context; the input is copied so later mutation of it cannot leak in. Copied by
 * hand, not with `structuredClone`: the shape is fixed (strings, lists of strings), and a run
 * builds two contexts (the operator layer on and off), where the clone's serialisation was the
 * larger part of their cost (docs/adr/0502-permission-contexts-are-copied-by-hand.md).
 */
export function createPermissionContext(input: PermissionContextInput = {}): ToolPermissionContext {
  return deepFreeze({
    mode: input.mode ?? 'default',
    additionalWorkingDirectories: [...(input.additionalWorkingDirectories ?? [])],
    alwaysAllowRules: copyRules(input.alwaysAllowRules),
    alwaysDenyRules: copyRules(input.alwaysDenyRules),
    alwaysAskRules: copyRules(input.alwaysAskRules),
    isBypassPermissionsModeAvailable: input.isBypassPermissionsModeAvailable ?? true,
    ...(input.shouldAvoidPermissionPrompts === undefined
      ? {}
      : { shouldAvoidPermissionPrompts: input.shouldAvoidPermissionPrompts }),
  })
}

/** Returns a new frozen context with `changes` applied: the only way permission state changes. */
export function updatePermissionContext(
  context: ToolPermissionContext,
  changes: PermissionContextInput,
): ToolPermissionContext {
  return createPermissionContext({ ...(context as PermissionContextInput), ...changes })
}

/**
 * The mode decisions use: `bypassPermissions` counts only while the operator allows it; a
 * context that carries it anyway (e.g. set by a context modifier) behaves as `default`.
 */
export function effectivePermissionMode(context: ToolPermissionContext): PermissionMode {
  return context.mode === 'bypassPermissions' && !context.isBypassPermissionsModeAvailable ? 'default' : context.mode
}
