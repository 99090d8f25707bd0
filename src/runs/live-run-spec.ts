import type { RunEvent } from '../events/run-event.js'
import type { HookRunner } from '../executor/hook-runner.js'
import type { PermissionGate } from '../executor/permission-gate.js'
import type { FinishedCall, RunExecutor, RunExecutorOptions } from '../executor/run-executor-types.js'
import type { RunOptions } from '../executor/run-options.js'
import type { Logger } from '../logging/logger.js'
import type { AssistantMessage, ToolResultBlock, ToolResultContent, ToolUseBlock } from '../messages/content-blocks.js'
import type { PermissionPrompter } from '../permissions/permission-prompter.js'
import type { SessionService } from '../sessions/session-service.js'
import type { OpenAsk, RunMode, RunRecord } from '../stores/run-store.js'
import type { SessionRecord } from '../stores/session-store.js'
import type { Stores } from '../stores/stores.js'
import type { Tools } from '../tool/tool.js'
import type { AdoptedAsk } from './control/permission-broker.js'

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
  /** Each call of a run of this instance once it has its outcome (the audit trail). */
  onCallFinished?: (call: FinishedCall, run: { runId: string; tenant: string; sessionId: string }) => void
  /** The asks a run of this instance has open, whenever they change ([] when none). */
  onOpenAsks?: (runId: string, asks: readonly OpenAsk[]) => void
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
  /**
   * A call's ask opened (true) or closed: admission counts it as waiting, not executing; false
   * to an opening refuses the ask (docs/adr/0241-asks-wait-without-holding-a-slot.md).
   */
  onAskWaiting?: (waiting: boolean) => boolean
  /** Who answers the asks instead of the run's broker (docs/adr/0353-asks-over-mcp-as-input-requests.md). */
  prompter?: PermissionPrompter
  /** Set when this instance takes the run over from a lost one (docs/adr/0243-taking-over-a-waiting-run.md). */
  resumed?: ResumedRun
}

/** What a run taken over brings from the instance that lost it. */
export type ResumedRun = {
  /** The record as stored: not created again. */
  record: RunRecord
  /** Results given before, in block order: not given again. */
  priorResults: ToolResultBlock[]
  /** Blocks that do not run again: the result they had, or the lost-call text. */
  settled: ReadonlyMap<string, { content: ToolResultContent; isError: boolean; lost?: boolean }>
  adoptedAsks: ReadonlyMap<string, AdoptedAsk>
}

/**
 * The record a run starts with: running, its blocks so far, nothing answered. `resumable`: other
 * instances could take it over, so it keeps what they need (not for streamed input, whose
 * blocks come from a client connected to this instance).
 */
export function newRunRecord(spec: LiveRunSpec, now: number, resumable: boolean): RunRecord {
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
    tools: [...new Set(spec.blocks.map((block) => block.name))],
    ...(resumable && spec.mode !== 'stream'
      ? {
          resume: {
            blocks: [...spec.blocks],
            refusals: [...spec.refusals],
            parentMessage: spec.parentMessage,
            runOptions: { ...spec.runOptions },
            ...(spec.permissionTimeoutMs === undefined ? {} : { permissionTimeoutMs: spec.permissionTimeoutMs }),
            ephemeralSession: spec.ephemeralSession === true,
          },
        }
      : {}),
  }
}
