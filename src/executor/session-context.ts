import type { ContextModifier, Tools, ToolUseContext } from '../tool/tool.js'
import type { Toolset } from '../tool/toolset.js'

/**
 * Session-owned state a run starts from and hands back (after context modifiers). `toolsets`
 * picks the pool when the run starts (docs/adr/0140-toolsets.md); absent: the operator's default.
 */
export type SessionContext = Pick<
  ToolUseContext,
  'tenant' | 'sessionId' | 'cwd' | 'permissionContext' | 'readFileState' | 'todos' | 'blobs' | 'environment'
> & { readonly toolsets?: readonly Toolset[] }

type CallFields = { runId: string; toolUseId: string; abortSignal: AbortSignal | (() => AbortSignal); tools: Tools }

/**
 * Written out rather than spread: this runs once per call and spreads showed in profiles. The
 * signal may be given lazily, so a call that never looks at it never allocates one.
 */
export function toCallContext(session: SessionContext, fields: CallFields): ToolUseContext {
  return {
    tenant: session.tenant,
    sessionId: session.sessionId,
    cwd: session.cwd,
    permissionContext: session.permissionContext,
    readFileState: session.readFileState,
    todos: session.todos,
    blobs: session.blobs,
    environment: session.environment,
    runId: fields.runId,
    toolUseId: fields.toolUseId,
    get abortSignal() {
      const signal = fields.abortSignal
      return typeof signal === 'function' ? signal() : signal
    },
    tools: fields.tools,
  }
}

/** Applies a tool's context modifier to the session state and keeps only what a session owns. */
export function applyContextModifier(
  session: SessionContext,
  modifier: ContextModifier,
  fields: Omit<CallFields, 'toolUseId' | 'abortSignal'>,
): SessionContext {
  const next = modifier(toCallContext(session, { ...fields, toolUseId: '', abortSignal: new AbortController().signal }))
  const { tenant, sessionId, cwd, permissionContext, readFileState, todos, blobs, environment } = next
  return { tenant, sessionId, cwd, permissionContext, readFileState, todos, blobs, environment }
}
