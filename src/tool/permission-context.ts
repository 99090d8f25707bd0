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

/** Builds a frozen context; the input is copied so later mutation of it cannot leak in. */
export function createPermissionContext(input: PermissionContextInput = {}): ToolPermissionContext {
  return deepFreeze(
    structuredClone({
      mode: input.mode ?? 'default',
      additionalWorkingDirectories: [...(input.additionalWorkingDirectories ?? [])],
      alwaysAllowRules: input.alwaysAllowRules ?? {},
      alwaysDenyRules: input.alwaysDenyRules ?? {},
      alwaysAskRules: input.alwaysAskRules ?? {},
      isBypassPermissionsModeAvailable: input.isBypassPermissionsModeAvailable ?? true,
      ...(input.shouldAvoidPermissionPrompts === undefined
        ? {}
        : { shouldAvoidPermissionPrompts: input.shouldAvoidPermissionPrompts }),
    }),
  )
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
