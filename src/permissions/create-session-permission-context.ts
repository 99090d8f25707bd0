import path from 'node:path'
import { isInside } from '../paths/is-inside.js'
import { resolveRealPathSync } from '../paths/resolve-real-path.js'
import { createPermissionContext, type PermissionMode, type ToolPermissionContext } from '../tool/permission-context.js'
import { findInvalidRules } from './permission-rule.js'
import type { PermissionsSettings } from './permissions-settings-schema.js'

/** What a session (POST /v1/sessions) may ask for; rules add to the operator's. */
export type SessionPermissionOptions = {
  mode?: PermissionMode | undefined
  allow?: readonly string[] | undefined
  deny?: readonly string[] | undefined
  ask?: readonly string[] | undefined
  additionalDirectories?: readonly string[] | undefined
  shouldAvoidPermissionPrompts?: boolean
  /** Directories (and the session cwd) must lie inside this root: the tenant's workspace. */
  workspaceRoot?: string
  /** Relative additional directories are resolved against it; default the workspace root. */
  cwd?: string
}

export type SessionPermissionErrorCode =
  | 'bypass_permissions_disabled'
  | 'invalid_permission_rule'
  | 'directory_outside_workspace'

/** A session request the operator's settings do not allow; the service answers 400 with `code`. */
export class SessionPermissionError extends Error {
  override name = 'SessionPermissionError'
  constructor(
    readonly code: SessionPermissionErrorCode,
    message: string,
  ) {
    super(message)
  }
}

/**
 * The permission context of a new session: operator rules (source `operatorSettings`) plus the
 * session's own (source `session`), the session's mode or the operator's `defaultMode`. Deny
 * always wins over allow whatever the source, so a session cannot undo an operator deny.
 * A session asking for bypassPermissions while the operator disabled it is refused, not
 * downgraded (ADR 0040); so are rules that do not parse and directories outside the workspace.
 */
export function createSessionPermissionContext(
  operator: PermissionsSettings | undefined,
  session: SessionPermissionOptions = {},
): ToolPermissionContext {
  const bypassAvailable = operator?.disableBypassPermissionsMode !== 'disable'
  const mode = session.mode ?? operator?.defaultMode ?? 'default'
  if (mode === 'bypassPermissions' && !bypassAvailable) {
    throw new SessionPermissionError(
      'bypass_permissions_disabled',
      'permission_mode bypassPermissions is disabled by the operator (disableBypassPermissionsMode: "disable")',
    )
  }
  const sessionRules = {
    allow: [...(session.allow ?? [])],
    deny: [...(session.deny ?? [])],
    ask: [...(session.ask ?? [])],
  }
  const invalid = findInvalidRules({ session: [...sessionRules.allow, ...sessionRules.deny, ...sessionRules.ask] })
  if (invalid.length > 0) {
    throw new SessionPermissionError('invalid_permission_rule', invalid.map((error) => error.message).join('; '))
  }
  const base = session.cwd ?? session.workspaceRoot ?? process.cwd()
  // Real paths now: a symlink planted later cannot widen what the session was granted.
  const directories = (session.additionalDirectories ?? []).map((directory) =>
    resolveRealPathSync(path.resolve(base, directory)),
  )
  const root = session.workspaceRoot
  const outside =
    root === undefined ? undefined : directories.find((directory) => !isInside(resolveRealPathSync(root), directory))
  if (outside !== undefined) {
    throw new SessionPermissionError(
      'directory_outside_workspace',
      `additional directory ${outside} is outside the workspace`,
    )
  }
  return createPermissionContext({
    mode,
    additionalWorkingDirectories: directories,
    alwaysAllowRules: { operatorSettings: [...(operator?.allow ?? [])], session: sessionRules.allow },
    alwaysDenyRules: { operatorSettings: [...(operator?.deny ?? [])], session: sessionRules.deny },
    alwaysAskRules: { operatorSettings: [...(operator?.ask ?? [])], session: sessionRules.ask },
    isBypassPermissionsModeAvailable: bypassAvailable,
    ...(session.shouldAvoidPermissionPrompts === undefined
      ? {}
      : { shouldAvoidPermissionPrompts: session.shouldAvoidPermissionPrompts }),
  })
}
