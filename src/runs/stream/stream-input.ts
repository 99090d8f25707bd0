import { type Caller, requireCapability } from '../../auth/capability.js'
import { ApiError } from '../../errors/api-error.js'
import type { RunEvent } from '../../events/run-event.js'
import type { Logger } from '../../logging/logger.js'
import { applyControlFrame } from '../control/control-frame.js'
import type { LiveRun } from '../live-run.js'
import type { RunManager } from '../run-manager.js'
import { checkBlocks, type InputLimits, requestFromStreamStart } from '../run-request.js'
import { type AssemblerAction, createStreamEventAssembler } from './stream-event-assembler.js'
import type { StreamFrame } from './stream-frame.js'

export type StreamInputOptions = {
  runManager: RunManager
  caller: Caller
  limits: InputLimits & { maxInputDepth: number }
  logger: Logger
  /** Receives the run's events once it has started. */
  send: (event: RunEvent) => void
}

/**
 * One streamed-input connection: `run.start` opens the run, then tool_use frames or raw Messages
 * stream events feed it block by block (each starts as soon as it is complete), and `input.end`,
 * `message_stop` or the client leaving ends the input. Frames must be handled one at a time.
 */
export function createStreamInput(options: StreamInputOptions) {
  const { runManager, caller } = options
  const { tenant } = caller
  const assembler = createStreamEventAssembler({
    maxInputBytes: options.limits.maxInputBytes,
    maxInputDepth: options.limits.maxInputDepth,
  })
  const seen = new Set<string>()
  const content: Array<{ type: string; [key: string]: unknown }> = []
  let run: LiveRun | undefined
  let unsubscribe: (() => void) | undefined
  let closed = false

  async function start(frame: Extract<StreamFrame, { type: 'run.start' }>): Promise<void> {
    if (run) throw new ApiError('stream_already_started', 'This connection already started its run')
    requireCapability(caller, 'run')
    const handle = await runManager.start(requestFromStreamStart(frame, { tenant, logger: options.logger }, content))
    // A stream start carries no Idempotency-Key, so its run always starts here.
    if (handle.kind !== 'started') throw new Error(`run.start replayed run ${handle.runId}`)
    run = handle.live
    const started = run
    started.onEndInput(() => endInput(started))
    const stop = await runManager.subscribe(tenant, run.runId, 0, options.send)
    if (closed) stop()
    else unsubscribe = stop
    if (closed) endInput(run)
  }

  /**
   * Applies every action, even after one of them is refused: a later `end` must still end the
   * input, or the run would never complete. The first refusal is thrown afterwards (an error frame).
   */
  function apply(target: LiveRun, actions: AssemblerAction[]): void {
    let firstError: unknown
    for (const action of actions) {
      if (action.type === 'end') {
        target.endInput()
        continue
      }
      let refusal = action.type === 'refuse' ? action.reason : undefined
      try {
        checkBlocks([action.block], options.limits, seen)
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'input_too_large') {
          firstError ??= error
          continue
        }
        refusal = error.message
      }
      content.push(action.block)
      target.addToolUse(action.block, refusal === undefined ? undefined : { refuseWith: refusal })
    }
    if (firstError !== undefined) throw firstError
  }

  /** Blocks still held or open get their results before the input ends, whoever ends it. */
  function endInput(target: LiveRun): void {
    if (target.inputEnded) return
    try {
      apply(target, assembler.end())
    } catch (error) {
      // Nobody is left to tell (the client left, or the server is draining): the log is enough.
      options.logger.warn({ err: error }, 'a streamed block was refused as the input ended')
    }
  }

  return {
    async handle(frame: StreamFrame): Promise<void> {
      if (frame.type === 'run.start') return start(frame)
      if (!run) throw new ApiError('stream_not_started', 'Send a run.start frame first')
      const target = run
      if (frame.type === 'run.cancel' || frame.type === 'permission.response') {
        return applyControlFrame(frame, caller.keyName, {
          cancel: (mode) => runManager.cancel(tenant, target.runId, mode),
          answer: (requestId, answer) => runManager.answerPermission(caller, target.runId, requestId, answer),
        })
      }
      if (target.inputEnded) {
        // The tail of a stream that already ended it (message_stop after a max_tokens message_delta).
        if (frame.type === 'message_stop' || frame.type === 'ping') return
        throw new ApiError('input_ended', 'The input of this run has ended')
      }
      if (frame.type === 'tool_use') apply(target, assembler.pushBlock(frame.tool_use))
      else if (frame.type === 'input.end') apply(target, assembler.end())
      else apply(target, assembler.push(frame))
    },
    /** The client went away: blocks still incomplete are refused and the input ends; the run goes on. */
    close(): void {
      closed = true
      unsubscribe?.()
      if (run) endInput(run)
    },
    get runId() {
      return run?.runId
    },
  }
}
