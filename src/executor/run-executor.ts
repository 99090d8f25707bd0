import type { ToolResultBlock, ToolUseBlock } from '../messages/content-blocks.js'
import { pipelineFaultMessage } from '../messages/tool-error-messages.js'
import { startCallSpan } from '../telemetry/call-span.js'
import { endingRunSpan, startRunSpan } from '../telemetry/run-span.js'
import { type AbortReason, abortReasonText } from './abort-reason.js'
import { admitCallSafely, outcomeBeforeAdmission, queuedEvent } from './admit-call.js'
import { armCallDeadline, pauseCallDeadline } from './call-deadline.js'
import { reportFinished } from './call-outcome.js'
import { type CallOutcome, runCallPipeline } from './call-pipeline.js'
import { faultLater, progressOf, runInSpan } from './call-pipeline-start.js'
import { cancelsSiblings, interruptible } from './cancel-policy.js'
import { describeCall } from './describe-call.js'
import { pipelineRunOf } from './pipeline-run-of.js'
import { createResultYielder } from './result-yielder.js'
import type { AddToolUseOptions, RunExecutor, RunExecutorOptions, RunOutcome } from './run-executor-types.js'
import { armRunDeadline, checkedMaxConcurrency } from './run-limits.js'
import type { CancelMode } from './run-options.js'
import { completionEvent, runOutcome } from './run-outcome.js'
import { canStart, countQueued, type ExecutingSet } from './scheduling-rule.js'
import { withSessionAllowRule } from './session-allow-rule.js'
import type { SessionContext } from './session-context.js'
import { applyContextModifier, applyDeferredModifiers, toCallContext } from './session-context.js'
import { abortCall, type TrackedCall, trackCall } from './tracked-call.js'

const RESOLVED = Promise.resolve()

/**
 * The scheduler of docs/design.md §6 for one run. Blocks are queued in order; the queue is walked in order
 * and the first call that may not start is a barrier for everything after it. Results are
 * yielded in block order, progress the moment it happens. Every block gets exactly one result.
 */
export function createRunExecutor(options: RunExecutorOptions): RunExecutor {
  const { runId, sink, tools } = options
  const pipelineRun = pipelineRunOf(options)
  const maxConcurrency = checkedMaxConcurrency(options.options.maxConcurrency)
  const calls: TrackedCall[] = []
  /** How many calls hold a `deferredModifier`: flushing is free while there are none. */
  let deferredModifiers = 0
  let session: SessionContext = options.context
  let stopReason: AbortReason | undefined
  let cancelled = false
  let announced = 0
  let kickScheduled = false
  let drainQueued = false
  let started = false
  let inputEnded = false
  let done = false
  /** Once the run is over: its results, the calls themselves being let go of. */
  let finalResults: ToolResultBlock[] | undefined
  /** Calls' start times count from here: a small integer, where a clock reading is a boxed number per call. */
  const epoch = Date.now()
  let resolveFinished!: (outcome: RunOutcome) => void
  const finished = new Promise<RunOutcome>((resolve) => {
    resolveFinished = resolve
  })

  const runSpan = startRunSpan(runId)
  const yielder = createResultYielder({
    runId,
    calls,
    sink,
    tenant: options.context.tenant,
    blobs: options.context.blobs,
    budget: options.options.maxResultChars,
  })

  const runTimer = armRunDeadline(options.options.runTimeoutMs, stopAll)

  const executing: ExecutingSet = { count: 0, unsafe: 0 }
  /** What every call's context and every context modifier is given of the run. */
  const callFields = { runId, tools }
  const ids = new Set<string>()
  /** Calls start in block order, so everything before this index has left the queue. */
  let nextToStart = 0

  function flushGroupModifiers(): void {
    if (deferredModifiers === 0) return
    deferredModifiers = 0
    session = applyDeferredModifiers(calls, session, callFields)
  }

  /**
   * Yields what it can, then finishes the run if every block is in and out: once per microtask
   * however many calls completed in it, in a later microtask than the completion; a call that ran
   * alone drains in its own settle job instead (docs/adr/0443).
   */
  function drain(): void {
    if (drainQueued) return
    drainQueued = true
    // A resolved promise's reaction: the same microtask queue as queueMicrotask, without the
    // async resource Node makes for each of its callbacks (docs/adr/0442).
    RESOLVED.then(drainNow)
  }

  function drainNow(): void {
    drainQueued = false
    try {
      const pass = yielder.drain()
      if (pass === undefined) maybeFinish()
      else void pass.then(maybeFinish)
    } catch (fault) {
      // As when the pass ran in a promise: a fault here is a rejection, not a thrown microtask.
      void Promise.reject(fault)
    }
  }

  /** The executor ends the run itself: once the input ended, nothing is unannounced, and all is yielded. */
  function maybeFinish(): void {
    if (done || !inputEnded || kickScheduled || !yielder.allYielded) return
    done = true
    clearTimeout(runTimer)
    flushGroupModifiers()
    const outcome = runOutcome(cancelled, stopReason, calls, yielder.blobs(), session)
    sink.finish(outcome, completionEvent(outcome))
    resolveFinished(outcome)
    // The run's arrays live as long as the run, and V8 often keeps them in the old generation;
    // there, once dead, they kept every call and result they pointed to alive through each
    // scavenge until a full collection. Emptied, they point at nothing (docs/adr/0436).
    finalResults = outcome.results
    calls.length = 0
    yielder.release()
  }

  /** `now`: the clock read by the caller for this stretch of work, if it has one (docs/adr/0442). */
  function finish(call: TrackedCall, outcome: CallOutcome, now = Date.now()): void {
    if (call.status === 'completed' || call.status === 'yielded') return
    if (call.status === 'queued') sink.event({ type: 'tool.started', tool_use_id: call.block.id })
    if (call.status === 'executing') {
      executing.count--
      if (!call.safe) executing.unsafe--
    }
    clearTimeout(call.timer)
    call.status = 'completed'
    call.outcome = outcome
    const duration = call.startedAt === undefined ? 0 : now - epoch - call.startedAt
    sink.event({ type: 'tool.completed', tool_use_id: call.block.id, is_error: outcome.isError, duration_ms: duration })
    if (options.onCallFinished) reportFinished(options.onCallFinished, call, outcome, duration)
    // Serial calls change the context before the next call starts; a concurrent group's
    // modifiers wait until the whole group is over and then apply in block order.
    if (outcome.contextModifier && call.safe) {
      call.deferredModifier = outcome.contextModifier
      deferredModifiers++
    } else if (outcome.contextModifier) session = applyContextModifier(session, outcome.contextModifier, callFields)
    if (outcome.isError && !call.stoppedByEngine) abortSiblingsAfter(call)
    yielder.completed(call)
  }

  function stop(call: TrackedCall, reason: AbortReason): void {
    // A call's own deadline is its failure (a Bash timeout cancels its siblings like any Bash
    // error); cancels, sibling aborts and the run deadline are the engine's doing and never cascade.
    if (reason.kind !== 'timeout') call.stoppedByEngine = true
    finish(call, { content: abortReasonText(reason, call.tool?.name ?? call.block.name), isError: true })
  }

  function abortSiblingsAfter(call: TrackedCall): void {
    const name = call.tool?.name ?? call.block.name
    if (stopReason || !cancelsSiblings(call.tool, options.options.cancelOnError)) return
    stopAll({ kind: 'sibling', erroredCall: describeCall(name, call.block.input) })
  }

  /** Queued calls get their result now; running ones (those `shouldAbort` picks) are aborted. */
  function stopAll(reason: AbortReason, shouldAbort: (call: TrackedCall) => boolean = () => true): void {
    stopReason ??= reason
    for (const call of calls) {
      if (call.status === 'queued') {
        abortCall(call, reason)
        stop(call, reason)
      } else if (call.status === 'executing' && shouldAbort(call)) abortCall(call, reason)
    }
    drain()
  }

  function execute(call: TrackedCall, now: number): void {
    const tool = call.tool!
    call.status = 'executing'
    executing.count++
    if (!call.safe) executing.unsafe++
    call.startedAt = now - epoch
    sink.event({ type: 'tool.started', tool_use_id: call.block.id })
    armCallDeadline(call, options.options.callTimeoutMs)
    const span = startCallSpan(runSpan.context, tool.name, call.block.id)
    call.span = span
    // One function for the run rather than a closure per call; the call comes with the outcome
    // (docs/adr/0433-a-call-carries-what-its-end-needs.md).
    call.settle = settled
    const context = toCallContext(session, callFields, call.block.id, call)
    const onProgress = progressOf(sink, call)
    try {
      if (runSpan.context === undefined) runCallPipeline(pipelineRun, call, context, onProgress)
      else runInSpan(pipelineRun, span, call, context, onProgress)
    } catch (fault) {
      faultLater(call, String(fault))
    }
    // Read once, at the start: a finished call keeps only what its result needs (docs/adr/0433).
    call.parsedInput = undefined
  }

  /** A running call's end, handed over once by handOver (settle-or-abort.ts). */
  function settled(outcome: CallOutcome | undefined, call: TrackedCall): void {
    const tool = call.tool!
    call.span?.end(call.abortReason?.kind ?? (outcome?.isError === false ? undefined : 'tool_error'))
    call.span = undefined
    // One clock read for this call's end and the next call's start (docs/adr/0442).
    const now = Date.now()
    // Only this call ran: no other completion of the run can share its drain, so it drains in
    // this job once the next call started (docs/adr/0443). Otherwise the drain is queued before
    // the next call starts, so its place among the microtasks is what it always was.
    const alone = executing.count === 1
    if (call.abortReason !== undefined) stop(call, call.abortReason)
    else finish(call, outcome ?? { content: pipelineFaultMessage(tool.name, 'no outcome'), isError: true }, now)
    if (!alone) drain()
    schedule(now)
    // A drain already queued (a cancel, a cascade to the queued calls) yields this result too.
    if (alone && !drainQueued) drainNow()
  }

  /** Starts what the rules allow, walking the queue in order; the first call that can't start is a barrier. */
  function schedule(clock?: number): void {
    let now = clock
    for (let index = nextToStart; index < calls.length; index++) {
      const call = calls[index]!
      if (call.status === 'queued') {
        if (!canStart(call, executing, maxConcurrency)) break
        if (executing.count === 0) flushGroupModifiers()
        now ??= Date.now()
        execute(call, now)
      }
      if (index === nextToStart) nextToStart++
    }
    if (executing.count === 0) flushGroupModifiers()
  }

  /** Once per tick: announce new blocks (after run.started), settle the ones that cannot run, schedule. */
  function kick(): void {
    kickScheduled = false
    if (!started) {
      started = true
      // A run taken over from a lost instance announced itself there already.
      if (!options.resumed) sink.event({ type: 'run.started', tool_use_ids: calls.map((call) => call.block.id) })
    }
    for (const call of calls.slice(announced)) admit(call)
    announced = calls.length
    schedule()
    drain()
  }

  function admit(call: TrackedCall): void {
    const immediateError = admitCallSafely(call, tools)
    sink.event(queuedEvent(call))
    const settledBefore = outcomeBeforeAdmission(call)
    if (settledBefore !== undefined) finish(call, settledBefore)
    else if (stopReason) {
      stop(call, stopReason.kind === 'cancel' ? { kind: 'already-aborted' } : stopReason)
    } else if (immediateError !== undefined) {
      finish(call, { content: immediateError, isError: true })
    }
  }

  function scheduleKick(): void {
    if (kickScheduled) return
    kickScheduled = true
    queueMicrotask(kick)
  }

  return {
    addToolUse(block: ToolUseBlock, addOptions?: AddToolUseOptions): void {
      if (inputEnded) throw new Error('addToolUse after endInput: the run takes no more blocks')
      if (ids.has(block.id)) throw new Error(`Duplicate tool_use id: ${block.id}`)
      ids.add(block.id)
      calls.push(trackCall(calls.length, block, addOptions?.refuseWith, addOptions?.settled))
      scheduleKick()
    },
    endInput(): void {
      inputEnded = true
      scheduleKick()
    },
    cancel(mode: CancelMode = 'cancel'): void {
      cancelled = true
      stopAll(
        mode === 'shutdown' ? { kind: 'shutdown' } : { kind: 'cancel' },
        mode === 'interrupt' ? interruptible : undefined,
      )
    },
    addAllowRule(rule: string): void {
      session = withSessionAllowRule(session, rule)
    },
    awaitingAnswer(toolUseId: string, waiting: boolean): void {
      const call = calls.find((candidate) => candidate.block.id === toolUseId)
      if (call?.status === 'executing') pauseCallDeadline(call, waiting, options.options.callTimeoutMs)
    },
    results: () => finalResults ?? yielder.results(),
    finished: runSpan.context === undefined ? finished : endingRunSpan(finished, runSpan),
    get executingCount() {
      return executing.count
    },
    get queuedCount() {
      return countQueued(calls, nextToStart)
    },
  }
}
