import type { ToolPermissionContext } from '../tool/permission-context.js'
import type { FileReadRecord, Todo } from '../tool/tool.js'
import type { TextEditorType, Toolset } from '../tool/toolset.js'

/** The tool-use context a session carries between runs (docs/design.md §10). */
export type SessionRecord = {
  readonly sessionId: string
  readonly tenant: string
  readonly createdAt: string
  cwd: string
  /** The session's own state; operator rules are laid over it at each run start. */
  permissionContext: ToolPermissionContext
  readFileState: Map<string, FileReadRecord>
  todos: readonly Todo[]
  /** The tool sets its runs use; absent: the operator's default (docs/adr/0140-toolsets.md). */
  readonly toolsets?: readonly Toolset[]
  /** The text editor version its pool offers; absent: the operator's, else the newest (docs/adr/0289). */
  readonly textEditor?: TextEditorType
  /** Last time a request touched it: idle sessions expire. */
  lastUsedAt: number
  /** The run holding the session, if any: one run at a time keeps context updates ordered. */
  activeRunId?: string | undefined
}

export type SessionState = Pick<SessionRecord, 'cwd' | 'permissionContext' | 'readFileState' | 'todos'>

type SessionClaim = 'claimed' | 'busy' | 'missing'

/** Sessions, tenant-scoped like runs. `claim`/`release` serialise the runs of one session. */
export interface SessionStore {
  create(record: SessionRecord): Promise<void>
  get(tenant: string, sessionId: string): Promise<SessionRecord | undefined>
  delete(tenant: string, sessionId: string): Promise<boolean>
  claim(tenant: string, sessionId: string, runId: string, now: number): Promise<SessionClaim>
  /** Saves the state the run handed back and frees the session. */
  release(tenant: string, sessionId: string, runId: string, state: SessionState | undefined, now: number): Promise<void>
  /**
   * Sessions open, of `tenant` and in all: what the session caps count (docs/adr/0234-session-caps.md).
   * The Redis store counts sessions created within the idle TTL, not touched since.
   */
  count(tenant: string, now: number): Promise<{ tenant: number; total: number }>
  /** Removes sessions idle for longer than `idleTtlMs` and not held by a run; returns how many. */
  sweep(now: number, idleTtlMs: number): Promise<number>
}
