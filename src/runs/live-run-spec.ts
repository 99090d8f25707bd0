import type { RunEvent } from '../events/run-event.js'
import type { HookRunner } from '../executor/hook-runner.js'
import type { PermissionGate } from '../executor/permission-gate.js'
import type { RunExecutor, RunExecutorOptions } from '../executor/run-executor-types.js'
import type { RunOptions } from '../executor/run-options.js'
import type { Logger } from '../logging/logger.js'
import type { AssistantMessage, ToolUseBlock } from '../messages/content-blocks.js'
import type { PermissionPrompter } from '../permissions/permission-prompter.js'
import type { SessionService } from '../sessions/session-service.js'
import type { RunMode, RunRecord } from '../stores/run-store.js'
import type { SessionRecord } from '../stores/session-store.js'
import type { Stores } from '../stores/stores.js'
import type { Tools } from '../tool/tool.js'

/** Builds the permission gate of one run around its prompter (the seam the permissions module fills). */
export type PermissionGateFactory = (seam: {
  prompter: PermissionPrompter
  timeoutMs: number | undefined
}) => PermissionGate

export type LiveRunDependencies = {
  stores: Stores
  sessions: SessionService
  createExecutor: (options: RunExecutorOptions) => RunExecutor
  permissionGateFor: PermissionGateFactory
  hooks?: HookRunner
  runTtlMs: number
  /** Other instances may close this instance's runs: results held behind a running block are stored (docs/adr/0238). */
  keepsHeldResults?: boolean
  observe: (event: RunEvent, tenant: string) => void
  now: () => number
}

export type LiveRunSpec = {
  runId: string
  session: SessionRecord
  mode: RunMode
  tools: Tools
  blocks: readonly ToolUseBlock[]
  refusals: ReadonlyMap<string, string>
  parentMessage: AssistantMessage
  runOptions: RunOptions
  permissionTimeoutMs: number | undefined
  idempotencyKey?: string
  /** The session was made for this run alone (no session_id): it ends with the run (docs/adr/0125-ephemeral-sessions-end-with-their-run.md). */
  ephemeralSession?: boolean
  logger: Logger
}

/** The record a run starts with: running, its blocks so far, nothing answered. */
export function newRunRecord(spec: LiveRunSpec, now: number): RunRecord {
  return {
    runId: spec.runId,
    tenant: spec.session.tenant,
    sessionId: spec.session.sessionId,
    mode: spec.mode,
    createdAt: new Date(now).toISOString(),
    ...(spec.idempotencyKey === undefined ? {} : { idempotencyKey: spec.idempotencyKey }),
    status: 'running',
    toolUseIds: spec.blocks.map((block) => block.id),
    results: [],
    blobs: [],
  }
}
