import type { PermissionsSettings } from '../permissions/permissions-settings-schema.js'
import type { DeepImmutable } from '../tool/deep-immutable.js'
import {
  RULE_SOURCES,
  type RulesBySource,
  type ToolPermissionContext,
  updatePermissionContext,
} from '../tool/permission-context.js'

/**
 * Lays the operator's rules over a session's context under the `operatorSettings` source.
 * Deny beats every allow whatever its source, so operator denies always win; a forbidden
 * bypass mode falls back to `default`.
 */
export function withOperatorLayer(
  context: ToolPermissionContext,
  operator: PermissionsSettings | undefined,
): ToolPermissionContext {
  const forbidBypass = operator?.disableBypassPermissionsMode === 'disable'
  return updatePermissionContext(context, {
    mode: forbidBypass && context.mode === 'bypassPermissions' ? 'default' : context.mode,
    alwaysAllowRules: withSource(context.alwaysAllowRules, operator?.allow ?? []),
    alwaysDenyRules: withSource(context.alwaysDenyRules, operator?.deny ?? []),
    alwaysAskRules: withSource(context.alwaysAskRules, operator?.ask ?? []),
    isBypassPermissionsModeAvailable: !forbidBypass,
  })
}

/** The inverse before saving: the session keeps only its own state, never a copy of the operator's. */
export function stripOperatorLayer(context: ToolPermissionContext): ToolPermissionContext {
  return updatePermissionContext(context, {
    alwaysAllowRules: withSource(context.alwaysAllowRules, undefined),
    alwaysDenyRules: withSource(context.alwaysDenyRules, undefined),
    alwaysAskRules: withSource(context.alwaysAskRules, undefined),
  })
}

/** A mutable copy of `rules` with the operator's source replaced (or removed when `operatorRules` is undefined). */
function withSource(rules: DeepImmutable<RulesBySource>, operatorRules: readonly string[] | undefined): RulesBySource {
  const copy: RulesBySource = {}
  for (const source of RULE_SOURCES) {
    const values = source === 'operatorSettings' ? operatorRules : rules[source]
    if (values !== undefined) copy[source] = [...values]
  }
  return copy
}

/** Whether two contexts hold the same mode, flags, directories and rules (a rule list's absence differs from an empty one). */
export function samePermissionContext(a: ToolPermissionContext, b: ToolPermissionContext): boolean {
  const sameList = (x: readonly string[] | undefined, y: readonly string[] | undefined) =>
    x === y || (x !== undefined && y !== undefined && x.length === y.length && x.every((value, at) => value === y[at]))
  const sameRules = (x: DeepImmutable<RulesBySource>, y: DeepImmutable<RulesBySource>) =>
    RULE_SOURCES.every((source) => sameList(x[source], y[source])) && Object.keys(x).length === Object.keys(y).length
  return (
    a.mode === b.mode &&
    a.isBypassPermissionsModeAvailable === b.isBypassPermissionsModeAvailable &&
    a.shouldAvoidPermissionPrompts === b.shouldAvoidPermissionPrompts &&
    sameList(a.additionalWorkingDirectories, b.additionalWorkingDirectories) &&
    sameRules(a.alwaysAllowRules, b.alwaysAllowRules) &&
    sameRules(a.alwaysDenyRules, b.alwaysDenyRules) &&
    sameRules(a.alwaysAskRules, b.alwaysAskRules)
  )
}
