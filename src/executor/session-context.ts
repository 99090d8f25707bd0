import type { ContextModifier, Tools, ToolUseContext } from '../tool/tool.js'
import type { TextEditorType, Toolset } from '../tool/toolset.js'
import { callSignal, type TrackedCall } from './tracked-call.js'

/**
 * Session-owned state a run starts from and hands back (after context modifiers). `toolsets` and
 * `textEditor` pick the pool when the run starts (docs/adr/0140-toolsets.md, docs/adr/0289);
 * absent: the operator's default.
 */
export type SessionContext = Pick<
  ToolUseContext,
  'tenant' | 'sessionId' | 'cwd' | 'permissionContext' | 'readFileState' | 'todos' | 'blobs' | 'environment'
> & { readonly toolsets?: readonly Toolset[]; readonly textEditor?: TextEditorType }

type CallFields = { runId: string; tools: Tools }

/**
 * One call's context. A class rather than an object literal: a literal with a getter is built
 * in dictionary mode, which was the engine's largest per-call cost; here the fields have one
 * shape and the getter lives on the prototype (docs/adr/0157-call-context-is-a-class.md). The
 * signal may come from the executor's call, made on first use, so a call that never looks at it
 * never allocates one, nor a closure to make it (docs/adr/0441).
 */
class CallContext implements ToolUseContext {
  readonly tenant: string
  readonly sessionId: string
  readonly cwd: string
  readonly permissionContext: ToolUseContext['permissionContext']
  readonly readFileState: ToolUseContext['readFileState']
  readonly todos: ToolUseContext['todos']
  readonly blobs: ToolUseContext['blobs']
  readonly environment: ToolUseContext['environment']
  readonly runId: string
  readonly toolUseId: string
  readonly tools: Tools
  readonly #signal: AbortSignal | TrackedCall

  constructor(session: SessionContext, fields: CallFields, toolUseId: string, signal: AbortSignal | TrackedCall) {
    this.tenant = session.tenant
    this.sessionId = session.sessionId
    this.cwd = session.cwd
    this.permissionContext = session.permissionContext
    this.readFileState = session.readFileState
    this.todos = session.todos
    this.blobs = session.blobs
    this.environment = session.environment
    this.runId = fields.runId
    this.toolUseId = toolUseId
    this.tools = fields.tools
    this.#signal = signal
  }

  get abortSignal(): AbortSignal {
    const signal = this.#signal
    return signal instanceof AbortSignal ? signal : callSignal(signal)
  }
}

/** `fields` are the run's, made once; `signal` is the call's own, or the call to make it from. */
export function toCallContext(
  session: SessionContext,
  fields: CallFields,
  toolUseId: string,
  signal: AbortSignal | TrackedCall,
): ToolUseContext {
  return new CallContext(session, fields, toolUseId, signal)
}

/** Applies a tool's context modifier to the session state and keeps only what a session owns. */
export function applyContextModifier(
  session: SessionContext,
  modifier: ContextModifier,
  fields: CallFields,
): SessionContext {
  const next = modifier(toCallContext(session, fields, '', new AbortController().signal))
  const { tenant, sessionId, cwd, permissionContext, readFileState, todos, blobs, environment } = next
  return { tenant, sessionId, cwd, permissionContext, readFileState, todos, blobs, environment }
}

/**
 * A concurrent group's modifiers, applied once the whole group is over, in block order; each
 * call's is taken so it applies once.
 */
export function applyDeferredModifiers(
  calls: readonly TrackedCall[],
  session: SessionContext,
  fields: CallFields,
): SessionContext {
  let next = session
  for (const call of calls) {
    const modifier = call.deferredModifier
    if (modifier === undefined) continue
    call.deferredModifier = undefined
    next = applyContextModifier(next, modifier, fields)
  }
  return next
}
