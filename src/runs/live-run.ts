import { createSerialQueue } from '../async/serial-queue.js'
import type { RunEvent, RunEventBody, RunStatus } from '../events/run-event.js'
import type { HookRunner } from '../executor/hook-runner.js'
import type { PermissionGate } from '../executor/permission-gate.js'
import type { RunExecutor, RunExecutorOptions, RunOutcome } from '../executor/run-executor-types.js'
import type { CancelMode, RunOptions } from '../executor/run-options.js'
import type { Logger } from '../logging/logger.js'
import {
  type AssistantMessage,
  type ToolResultBlock,
  type ToolUseBlock,
  toolResult,
} from '../messages/content-blocks.js'
import { pipelineFaultMessage, REJECT_MESSAGE } from '../messages/tool-error-messages.js'
import type { PermissionPrompter } from '../permissions/permission-prompter.js'
import type { SessionService } from '../sessions/session-service.js'
import type { RunMode, RunRecord } from '../stores/run-store.js'
import type { SessionRecord } from '../stores/session-store.js'
import type { Stores } from '../stores/stores.js'
import type { Tools } from '../tool/tool.js'
import { createPermissionBroker, type PermissionAnswer } from './control/permission-broker.js'

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

/** A run executing in this process: its executor, its approver, and the promise of its final record. */
export type LiveRun = Awaited<ReturnType<typeof launchRun>>

/**
 * Starts one run: stores its record, wires the executor's events into the event store (in
 * order, through one serial queue), and on completion saves the results and hands the
 * session's new context back.
 */
export async function launchRun(dependencies: LiveRunDependencies, spec: LiveRunSpec) {
  const { stores, sessions, now } = dependencies
  const { runId, session, logger } = spec
  const tenant = session.tenant
  const record: RunRecord = {
    runId,
    tenant,
    sessionId: session.sessionId,
    mode: spec.mode,
    createdAt: new Date(now()).toISOString(),
    ...(spec.idempotencyKey === undefined ? {} : { idempotencyKey: spec.idempotencyKey }),
    status: 'running',
    toolUseIds: spec.blocks.map((block) => block.id),
    results: [],
    blobs: [],
  }
  await stores.runs.create(record)

  const writes = createSerialQueue()
  const enqueue = (work: () => Promise<unknown>) => {
    // Whatever was emitted before this work is written before it.
    flush()
    writes.run(work).catch((error) => logger.error({ err: error }, 'storing a run event failed'))
  }
  /** Every write so far, emitted events included, has settled. */
  const settled = () => {
    flush()
    return writes.idle()
  }
  let completion: RunEventBody | undefined
  const emit = (body: RunEventBody) => {
    // Held back until the record is final and the session free: whoever sees run.completed
    // may read the results or start the next run on the session at once.
    if (body.type === 'run.completed') completion = body
    else {
      if (body.type === 'tool.completed')
        broker.withdraw(body.tool_use_id, 'The call ended before the ask was answered.')
      store(body)
    }
  }
  /**
   * Events emitted in one synchronous stretch (a batch's calls queued, a call's completion and
   * result) are written together at the next microtask: one store call and one queue entry per
   * stretch instead of per event (docs/adr/0174-run-events-written-in-batches.md).
   */
  let batch: RunEventBody[] = []
  const store = (body: RunEventBody) => {
    batch.push(body)
    if (batch.length === 1) queueMicrotask(flush)
  }
  function flush(): void {
    if (batch.length === 0) return
    const bodies = batch
    batch = []
    // Sent at once, in emit order, without waiting for the write before: on Redis one connection
    // keeps the order and the writes are pipelined. The queue still observes them in order, and
    // the run completes only after `settled()`, so nothing acknowledged precedes its events.
    const results: ToolResultBlock[] = []
    for (const body of bodies) if (body.type === 'tool.result') results.push(body.result)
    const written = Promise.all([
      stores.events.appendBatch(runId, bodies),
      results.length > 0 ? stores.runs.appendResults(runId, results) : undefined,
    ])
    written.catch(() => undefined)
    writes
      .run(async () => {
        const [events] = await written
        for (const event of events) dependencies.observe(event, tenant)
      })
      .catch((error) => logger.error({ err: error }, 'storing a run event failed'))
  }

  const broker = createPermissionBroker({ emit, timeoutMs: spec.permissionTimeoutMs })
  const executor = dependencies.createExecutor({
    runId,
    tools: spec.tools,
    context: sessions.contextFor(session),
    parentMessage: spec.parentMessage,
    options: spec.runOptions,
    emit,
    permissions: dependencies.permissionGateFor({ prompter: broker.prompter, timeoutMs: spec.permissionTimeoutMs }),
    ...(dependencies.hooks ? { hooks: dependencies.hooks } : {}),
  })
  const blockIds: string[] = []
  const blockNames = new Map<string, string>()
  let inputEnded = false

  function addToolUse(block: ToolUseBlock, options?: { refuseWith?: string }): void {
    executor.addToolUse(block, options)
    blockIds.push(block.id)
    blockNames.set(block.id, block.name)
    if (spec.mode === 'stream') enqueue(() => stores.runs.appendToolUseId(runId, block.id))
  }
  for (const block of spec.blocks) {
    const refusal = spec.refusals.get(block.id)
    addToolUse(block, refusal === undefined ? undefined : { refuseWith: refusal })
  }
  /** Set by streamed input: adds the blocks it still holds (refused if incomplete) before the end. */
  let flushInput: (() => void) | undefined
  function endInput(): void {
    const flush = flushInput
    flushInput = undefined
    flush?.()
    if (inputEnded) return
    inputEnded = true
    executor.endInput()
  }
  if (spec.mode !== 'stream') endInput()

  /** As the stored record has it: final once the record is. */
  let status: RunStatus = 'running'
  const finished = executor.finished
    .catch((fault: unknown) => recoverOutcome(fault))
    .then(async (outcome) => {
      await settled()
      const finishedAt = now()
      const final = {
        status: outcome.status,
        results: outcome.results,
        blobs: outcome.blobs,
        finishedAt: new Date(finishedAt).toISOString(),
        expiresAt: finishedAt + dependencies.runTtlMs,
      }
      // Side by side (one write on Redis); the session is given back even if the record fails.
      const ended = await Promise.allSettled([
        stores.runs.complete(runId, final),
        spec.ephemeralSession
          ? sessions.delete(tenant, session.sessionId)
          : sessions.release(session, runId, outcome.context),
      ])
      const failed = ended.find((result) => result.status === 'rejected')
      if (failed) throw failed.reason
      status = outcome.status
      store(completion ?? { type: 'run.completed', status: outcome.status })
      await settled()
      logger.info({ status: outcome.status, results: outcome.results.length }, 'run finished')
      // The record as just stored, built here rather than read back: only this run's instance
      // writes it, so a read would return the same, one more round trip on Redis
      // (docs/adr/0177-redis-auto-pipelining.md).
      const finalRecord: RunRecord = { ...record, toolUseIds: [...blockIds], ...final }
      return finalRecord
    })

  /** The executor broke its promise: every block still gets a result, and the run completes. */
  function recoverOutcome(fault: unknown): RunOutcome {
    logger.error({ err: fault }, 'run executor failed')
    const results = executor.results()
    const answered = new Set(results.map((result) => result.tool_use_id))
    for (const id of blockIds.filter((blockId) => !answered.has(blockId))) {
      const message = fault instanceof Error ? fault.message : String(fault)
      const result = toolResult(id, pipelineFaultMessage(blockNames.get(id) ?? 'unknown', message), true)
      results.push(result)
      emit({ type: 'tool.result', tool_use_id: id, result })
    }
    emit({ type: 'run.completed', status: 'completed' })
    return { status: 'completed', results, blobs: [], context: sessions.contextFor(session) }
  }

  return {
    runId,
    tenant,
    sessionId: session.sessionId,
    mode: spec.mode,
    addToolUse,
    endInput,
    get inputEnded() {
      return inputEnded
    },
    get status() {
      return status
    },
    /** Whoever ends the input (the stream, the client leaving, a server drain) runs `flush` first. */
    onEndInput(flush: () => void): void {
      flushInput = flush
    },
    cancel(mode: CancelMode = 'cancel'): void {
      // An ask still open means its call never started: it is rejected like any unstarted call.
      broker.denyAll(REJECT_MESSAGE)
      executor.cancel(mode)
      // A cancelled stream takes no more blocks: whoever cancelled has abandoned the model's
      // stream, so waiting for its end would leave the run (and its session) open forever.
      if (spec.mode === 'stream') endInput()
    },
    answerPermission: (requestId: string, answer: PermissionAnswer) => broker.answer(requestId, answer),
    finished,
  }
}
