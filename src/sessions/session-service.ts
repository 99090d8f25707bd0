import { randomUUID } from 'node:crypto'
import { ApiError } from '../errors/api-error.js'
import type { SessionContext } from '../executor/session-context.js'
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
import { createOperatorLayerCache } from './operator-layer-cache.js'
import { checkSessionLimits, type SessionLimits } from './session-limits.js'
import { sessionPermissionContext } from './session-permission-context.js'
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

/** Sessions as the API sees them: creation with confined paths, and the context runs start from. */
export function createSessionService(options: SessionServiceOptions) {
  const { store, operator } = options
  const now = options.now ?? Date.now
  const { layer, strip } = createOperatorLayerCache(operator)
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
    if (claimedBy === undefined) await checkSessionLimits(store, options.limits, tenant, input.permissions, now)
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
