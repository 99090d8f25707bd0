import { deferred } from '../async/deferred.js'
import type { RunEventBody, RunStatus } from '../events/run-event.js'
import type { AddToolUseOptions, RunOutcome } from '../executor/run-executor-types.js'
import type { CancelMode } from '../executor/run-options.js'
import type { RunSink } from '../executor/run-sink.js'
import type { ToolUseBlock } from '../messages/content-blocks.js'
import { REJECT_MESSAGE } from '../messages/tool-error-messages.js'
import { permissionMessages } from '../permissions/permission-messages.js'
import { findToolByName } from '../tool/find-tool.js'
import { createPermissionBroker, type PermissionAnswer } from './control/permission-broker.js'
import { finishRun, recoverOutcome } from './finish-run.js'
import { type LiveRunDependencies, type LiveRunSpec, newRunRecord } from './live-run-spec.js'
import { createRunEventWriter } from './run-event-writer.js'

export type { LiveRunDependencies, LiveRunSpec, PermissionGateFactory } from './live-run-spec.js'

/** A run executing in this process: its executor, its approver, and the promise of its final record. */
export type LiveRun = Awaited<ReturnType<typeof launchRun>>

/**
 * Starts one run: stores its record and wires its executor's sink to the event writer, the
 * permission broker and, at the end, `finishRun` (docs/adr/0190-run-core-cut-along-its-lifecycle.md).
 */
export async function launchRun(dependencies: LiveRunDependencies, spec: LiveRunSpec) {
  const { stores, sessions } = dependencies
  const { runId, session, logger } = spec
  const tenant = session.tenant
  const resumed = spec.resumed
  const record = resumed?.record ?? newRunRecord(spec, dependencies.now(), dependencies.keepsHeldResults === true)
  if (!resumed) await stores.runs.create(record)

  const writer = createRunEventWriter({ runId, tenant, stores, observe: dependencies.observe, logger })
  const broker = createPermissionBroker({
    emit: writer.store,
    timeoutMs: spec.permissionTimeoutMs,
    now: dependencies.now,
    onWaiting(toolUseId, waiting) {
      if (spec.onAskWaiting?.(waiting) === false) return false
      executor.awaitingAnswer(toolUseId, waiting)
      return true
    },
    onOpenAsks(asks) {
      dependencies.onOpenAsks?.(runId, asks)
      writer.enqueue(() => stores.runs.setOpenAsks(runId, asks))
    },
    addSessionRule: (rule) => executor.addAllowRule(rule),
    waitingBoundMessage: permissionMessages.deniedWaitingBound,
    ...(resumed ? { adopted: resumed.adoptedAsks } : {}),
  })
  /** The executor's outcome and its run.completed, held back until the record is final and the session free. */
  const over = deferred<{ outcome: RunOutcome; completion: RunEventBody }>()
  const sink: RunSink = {
    event(body) {
      if (body.type === 'tool.completed')
        broker.withdraw(body.tool_use_id, 'The call ended before the ask was answered.')
      writer.store(body)
    },
    result: writer.store,
    // Only where another instance could close the run: a single instance has no one to tell.
    ...(dependencies.keepsHeldResults
      ? { held: (body) => writer.enqueue(() => stores.runs.holdResult(runId, body.result)) }
      : {}),
    finish: (outcome, completion) => over.resolve({ outcome, completion }),
  }
  const executor = dependencies.createExecutor({
    runId,
    tools: spec.tools,
    context: sessions.contextFor(session),
    parentMessage: spec.parentMessage,
    options: spec.runOptions,
    sink,
    permissions: dependencies.permissionGateFor({
      prompter: spec.prompter ?? broker.prompter,
      timeoutMs: spec.permissionTimeoutMs,
    }),
    ...(dependencies.hooks ? { hooks: dependencies.hooks } : {}),
    ...(resumed ? { resumed: true } : {}),
    ...(dependencies.onCallFinished
      ? {
          onCallFinished: (call) =>
            dependencies.onCallFinished?.(call, { runId, tenant, sessionId: session.sessionId }),
        }
      : {}),
  })
  /** Every block so far, id → name, in block order. */
  const blocks = new Map<string, string>()
  let inputEnded = false
  let status: RunStatus = 'running'

  function addToolUse(block: ToolUseBlock, options?: AddToolUseOptions): void {
    // The slip a developer otherwise sees only in the model's next turn (docs/adr/0283-did-you-mean.md);
    // looked for only when debug lines are written, so the hot path pays nothing.
    if (logger.isLevelEnabled?.('debug') && !findToolByName(spec.tools, block.name)) {
      const meant = spec.tools.find((tool) => tool.name.toLowerCase() === block.name.toLowerCase())?.name
      if (meant !== undefined)
        logger.debug(
          { toolUseId: block.id, tool: block.name, meant },
          'tool name differs only in case from a tool of the pool',
        )
    }
    executor.addToolUse(block, options)
    blocks.set(block.id, block.name)
    if (spec.mode === 'stream') writer.enqueue(() => stores.runs.appendToolUseId(runId, block.id, block.name))
  }
  for (const block of spec.blocks) {
    const refusal = spec.refusals.get(block.id)
    const settled = resumed?.settled.get(block.id)
    addToolUse(block, settled ? { settled } : refusal === undefined ? undefined : { refuseWith: refusal })
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

  // An executor that breaks its promise still ends the run: every block gets a result.
  executor.finished.catch((fault: unknown) => {
    logger.error({ err: fault }, 'run executor failed')
    over.resolve(recoverOutcome(fault, executor.results(), blocks, writer.store, sessions.contextFor(session)))
  })
  const finishing = { record, session, ephemeralSession: spec.ephemeralSession === true, writer, stores, sessions }
  const finished = over.promise.then(async ({ outcome, completion }) => {
    const prior = resumed?.priorResults ?? []
    const final = await finishRun(
      { ...finishing, runTtlMs: dependencies.runTtlMs, now: dependencies.now, logger },
      prior.length === 0 ? outcome : { ...outcome, results: [...prior, ...outcome.results] },
      completion,
      [...prior.map((result) => result.tool_use_id), ...blocks.keys()],
    )
    status = final.status
    dependencies.onOpenAsks?.(runId, [])
    return final
  })

  return {
    runId,
    tenant,
    sessionId: session.sessionId,
    mode: spec.mode,
    /** When the run's own deadline (`timeout_ms`) falls, if it has one. */
    deadline:
      spec.runOptions.runTimeoutMs === undefined ? undefined : dependencies.now() + spec.runOptions.runTimeoutMs,
    addToolUse,
    endInput,
    get inputEnded() {
      return inputEnded
    },
    /** As the stored record has it: final once the record is. */
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
