import { randomUUID } from 'node:crypto'
import { ApiError } from '../errors/api-error.js'
import type { SessionContext } from '../executor/session-context.js'
import {
  createSessionPermissionContext,
  SessionPermissionError,
} from '../permissions/create-session-permission-context.js'
import { findInvalidRules } from '../permissions/permission-rule.js'
import type { PermissionsSettings } from '../permissions/permissions-settings-schema.js'
import type { BlobStore } from '../results/blob-store.js'
import type { SessionRecord, SessionState, SessionStore } from '../stores/session-store.js'
import {
  type PermissionMode,
  type RulesBySource,
  type ToolPermissionContext,
  updatePermissionContext,
} from '../tool/permission-context.js'
import type { ToolEnvironment } from '../tool/tool.js'
import type { TextEditorType, Toolset } from '../tool/toolset.js'
import { confineDirectory } from './confine-path.js'
import { samePermissionContext, stripOperatorLayer, withOperatorLayer } from './operator-layer.js'
import { checkRuleBytes, type SessionRules } from './session-rules.js'

/** The request body of POST /v1/sessions as its schema parses it (absent and undefined alike). */
export type CreateSessionInput = {
  cwd?: string | undefined
  permission_mode?: PermissionMode | undefined
  permissions?: { allow?: string[] | undefined; deny?: string[] | undefined; ask?: string[] | undefined } | undefined
  additional_directories?: string[] | undefined
  toolsets?: Toolset[] | undefined
  text_editor?: TextEditorType | undefined
}

export type SessionServiceOptions = {
  store: SessionStore
  blobs: BlobStore
  /** The operator's `permissions` settings (TOOLEXEC_SETTINGS). */
  operator: PermissionsSettings | undefined
  /** The tenant's workspace root: every session path stays inside it. */
  workspaceOf: (tenant: string) => string
  environmentOf: (tenant: string) => ToolEnvironment
  idleTtlMs: number
  /** Caps on open sessions and on one session's rules (docs/adr/0234-session-caps.md); absent: none. */
  limits?: SessionLimits | undefined
  now?: () => number
}

export type SessionLimits = {
  /** Sessions open at once (TOOLEXEC_MAX_SESSIONS). */
  maxSessions: number
  /** Sessions one tenant has open (TOOLEXEC_MAX_SESSIONS_PER_TENANT). */
  maxSessionsPerTenant: number
  /** Characters of one session's allow, deny and ask rules together (TOOLEXEC_MAX_SESSION_RULE_BYTES). */
  maxRuleBytes: number
}

/** How long a client refused by a session cap waits: sessions free as they end or expire. */
const SESSION_CAP_RETRY_AFTER_SECONDS = 5

/** Sessions as the API sees them: creation with confined paths, and the context runs start from. */
export function createSessionService(options: SessionServiceOptions) {
  const { store, operator } = options
  const now = options.now ?? Date.now
  /**
   * A session's context with the operator's layer, built once per permission-context change:
   * contexts are frozen, so the same object always layers (and strips) to the same result, and
   * a run that changed nothing hands back the layered object it was given
   * (docs/adr/0153-per-session-work-cached-per-change.md). Stripping that object gives back the
   * very context it was layered from when their contents match, so that the next run of the
   * session finds its layered context, its tool pool and its parsed rules in their caches
   * (docs/adr/0503-a-session-context-survives-its-run-unchanged.md).
   */
  const layered = new WeakMap<ToolPermissionContext, ToolPermissionContext>()
  const stripped = new WeakMap<ToolPermissionContext, ToolPermissionContext>()
  const layer = (own: ToolPermissionContext) => {
    let result = layered.get(own)
    if (!result) {
      result = withOperatorLayer(own, operator)
      layered.set(own, result)
      // The way back: the session's own object, if stripping gives what it holds.
      const back = stripOperatorLayer(result)
      stripped.set(result, samePermissionContext(back, own) ? own : back)
    }
    return result
  }
  const strip = (context: ToolPermissionContext) => {
    let result = stripped.get(context)
    if (!result) {
      result = stripOperatorLayer(context)
      stripped.set(context, result)
    }
    return result
  }
  /** Each tenant's workspace root, made and resolved once: most sessions (every run without one) use it as is. */
  const roots = new Map<string, Promise<string>>()
  const rootOf = (tenant: string) => {
    let root = roots.get(tenant)
    if (!root) {
      root = confineDirectory(options.workspaceOf(tenant), '.', 'cwd')
      root.catch(() => roots.delete(tenant))
      roots.set(tenant, root)
    }
    return root
  }

  /**
   * The context of a session created with no options (every run without a session_id makes
   * one) depends only on the tenant's root: built once per root and shared, as contexts are
   * frozen (docs/adr/0153-per-session-work-cached-per-change.md).
   */
  const plainContexts = new Map<string, ToolPermissionContext>()
  const plainContextOf = (root: string) => {
    let context = plainContexts.get(root)
    if (!context) {
      context = sessionPermissionContext(operator, { additionalDirectories: [], workspaceRoot: root, cwd: root })
      plainContexts.set(root, context)
    }
    return context
  }

  /**
   * A new session; `claimedBy` creates it already held by that run (a run without session_id):
   * nobody else knows its id yet, so one write replaces create, claim and read
   * (docs/adr/0179-one-control-channel-per-instance.md).
   */
  async function create(tenant: string, input: CreateSessionInput = {}, claimedBy?: string): Promise<SessionRecord> {
    // A run's own session (claimedBy) ends with it and is bounded by the run caps; the others count.
    if (claimedBy === undefined) await checkLimits(tenant, input)
    const root = await rootOf(tenant)
    const cwd = input.cwd === undefined ? root : await confineDirectory(root, input.cwd, 'cwd')
    const additional = await Promise.all(
      (input.additional_directories ?? []).map((directory) =>
        confineDirectory(root, directory, 'additional_directories'),
      ),
    )
    const permissions = input.permissions ?? {}
    const record: SessionRecord = {
      sessionId: `ses_${randomUUID()}`,
      tenant,
      createdAt: new Date(now()).toISOString(),
      cwd,
      permissionContext: isPlain(input)
        ? plainContextOf(root)
        : sessionPermissionContext(operator, {
            ...(input.permission_mode === undefined ? {} : { mode: input.permission_mode }),
            ...permissions,
            additionalDirectories: additional,
            workspaceRoot: root,
            cwd,
          }),
      readFileState: new Map(),
      todos: [],
      ...(input.toolsets === undefined ? {} : { toolsets: [...new Set(input.toolsets)] }),
      ...(input.text_editor === undefined ? {} : { textEditor: input.text_editor }),
      ...(claimedBy === undefined ? {} : { activeRunId: claimedBy }),
      lastUsedAt: now(),
    }
    await store.create(record)
    return record
  }

  /**
   * PATCH /v1/sessions/{id}: the session's own rules of each kind given are replaced, checked as at
   * creation. Done as a claim and release, so it never lands in the middle of a run (409 then).
   */
  async function replaceRules(tenant: string, sessionId: string, rules: SessionRules): Promise<SessionRecord> {
    const current = await get(tenant, sessionId)
    const own = current.permissionContext
    const next = {
      allow: rules.allow ?? [...(own.alwaysAllowRules.session ?? [])],
      deny: rules.deny ?? [...(own.alwaysDenyRules.session ?? [])],
      ask: rules.ask ?? [...(own.alwaysAskRules.session ?? [])],
    }
    checkRuleBytes(next, options.limits?.maxRuleBytes)
    const invalid = findInvalidRules({ session: [...next.allow, ...next.deny, ...next.ask] })
    if (invalid.length > 0)
      throw new ApiError('invalid_permission_rule', invalid.map((error) => error.message).join('; '))
    const patchId = `patch_${randomUUID()}`
    const session = await claim(tenant, sessionId, patchId)
    const context = session.permissionContext
    const permissionContext = updatePermissionContext(context, {
      alwaysAllowRules: { ...(context.alwaysAllowRules as RulesBySource), session: next.allow },
      alwaysDenyRules: { ...(context.alwaysDenyRules as RulesBySource), session: next.deny },
      alwaysAskRules: { ...(context.alwaysAskRules as RulesBySource), session: next.ask },
    })
    const state: SessionState = {
      cwd: session.cwd,
      permissionContext,
      readFileState: session.readFileState,
      todos: session.todos,
    }
    await store.release(tenant, sessionId, patchId, state, now())
    return { ...session, permissionContext, activeRunId: undefined }
  }

  async function checkLimits(tenant: string, input: CreateSessionInput): Promise<void> {
    const limits = options.limits
    if (!limits) return
    checkRuleBytes(input.permissions ?? {}, limits.maxRuleBytes)
    const open = await store.count(tenant, now())
    const full =
      open.tenant >= limits.maxSessionsPerTenant
        ? `this tenant has ${open.tenant} sessions open (TOOLEXEC_MAX_SESSIONS_PER_TENANT=${limits.maxSessionsPerTenant})`
        : open.total >= limits.maxSessions
          ? `the service has ${open.total} sessions open (TOOLEXEC_MAX_SESSIONS=${limits.maxSessions})`
          : undefined
    if (full !== undefined) {
      throw new ApiError('too_many_sessions', `No new session: ${full}; delete sessions you no longer use, or retry`, {
        retryAfterSeconds: SESSION_CAP_RETRY_AFTER_SECONDS,
      })
    }
  }

  async function get(tenant: string, sessionId: string): Promise<SessionRecord> {
    const record = await store.get(tenant, sessionId)
    if (!record) throw new ApiError('session_not_found', `No session ${sessionId}`)
    return record
  }

  /** Holds the session for one run; a second concurrent run on it is refused. */
  async function claim(tenant: string, sessionId: string, runId: string): Promise<SessionRecord> {
    const claim = await store.claim(tenant, sessionId, runId, now())
    if (claim === 'missing') throw new ApiError('session_not_found', `No session ${sessionId}`)
    if (claim === 'busy') throw new ApiError('session_busy', `Session ${sessionId} has a run in progress`)
    return get(tenant, sessionId)
  }

  async function release(session: SessionRecord, runId: string, context?: SessionContext): Promise<void> {
    const state: SessionState | undefined = context && {
      cwd: context.cwd,
      permissionContext: strip(context.permissionContext),
      readFileState: context.readFileState,
      todos: context.todos,
    }
    await store.release(session.tenant, session.sessionId, runId, state, now())
  }

  /** What a run starts from: the session's state with the operator's rules laid over it. */
  function contextFor(session: SessionRecord): SessionContext {
    return {
      tenant: session.tenant,
      sessionId: session.sessionId,
      cwd: session.cwd,
      permissionContext: layer(session.permissionContext),
      readFileState: session.readFileState,
      todos: session.todos,
      blobs: options.blobs,
      environment: options.environmentOf(session.tenant),
      ...(session.toolsets === undefined ? {} : { toolsets: session.toolsets }),
      ...(session.textEditor === undefined ? {} : { textEditor: session.textEditor }),
    }
  }

  /** What a run without a session starts from: the operator's rules and mode, nothing more. */
  function defaultPermissionContext(): ToolPermissionContext {
    return sessionPermissionContext(operator, {})
  }

  function expiresAt(session: SessionRecord): number {
    return session.lastUsedAt + options.idleTtlMs
  }

  return {
    create,
    replaceRules,
    get,
    claim,
    release,
    contextFor,
    defaultPermissionContext,
    expiresAt,
    delete: (tenant: string, sessionId: string) => store.delete(tenant, sessionId),
  }
}

export type SessionService = ReturnType<typeof createSessionService>

/** A session asked for nothing: the tenant's root as cwd, the operator's mode and rules only. */
function isPlain(input: CreateSessionInput): boolean {
  return (
    input.cwd === undefined &&
    input.permission_mode === undefined &&
    input.permissions === undefined &&
    (input.additional_directories ?? []).length === 0
  )
}

const SESSION_PERMISSION_CODES = {
  bypass_permissions_disabled: 'permission_mode_forbidden',
  invalid_permission_rule: 'invalid_permission_rule',
  directory_outside_workspace: 'path_outside_workspace',
} as const

/** The permissions module's refusals, as API errors. */
function sessionPermissionContext(...args: Parameters<typeof createSessionPermissionContext>) {
  try {
    return createSessionPermissionContext(...args)
  } catch (error) {
    if (error instanceof SessionPermissionError) throw new ApiError(SESSION_PERMISSION_CODES[error.code], error.message)
    throw error
  }
}
