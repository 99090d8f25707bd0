import { createSerialQueue } from '../async/serial-queue.js'
import type { RunEventBody } from '../events/run-event.js'
import type { ToolResultBlock } from '../messages/content-blocks.js'
import type { RunOutcome } from './run-executor-types.js'
import type { SessionContext } from './session-context.js'
import { applyBudget, applyToolThreshold, countedChars } from './size-results.js'
import type { TrackedCall } from './tracked-call.js'

type YielderOptions = {
  runId: string
  calls: TrackedCall[]
  emit: (event: RunEventBody) => void
  budget: number
  session: () => SessionContext
  /** False while blocks added this tick are not yet announced. */
  canFinish: () => boolean
  beforeFinish: () => Pick<RunOutcome, 'status' | 'context'>
}

/**
 * Hands results out in block order: each completed call gets its size threshold applied, the
 * run budget is applied over what is finished but not yet handed out, and the contiguous head of
 * completed calls is yielded. Drains run one at a time because persisting a blob is asynchronous.
 */
export function createResultYielder(options: YielderOptions) {
  const { calls, emit } = options
  const drains = createSerialQueue()
  let yieldedChars = 0
  let done = false
  /** Everything before this index has been yielded. */
  let nextToYield = 0
  /** Completed, not yet yielded, in completion order. */
  const waiting = new Set<TrackedCall>()
  let resolveFinished!: (outcome: RunOutcome) => void
  const finished = new Promise<RunOutcome>((resolve) => {
    resolveFinished = resolve
  })

  async function drainOnce(): Promise<void> {
    const session = options.session()
    const stage = { runId: options.runId, tenant: session.tenant, blobs: session.blobs, budget: options.budget }
    for (const call of waiting) {
      if (call.result) continue
      const storing = applyToolThreshold(call, stage)
      if (storing) await storing
    }
    if (calls[nextToYield]?.status === 'completed') {
      const pending = [...waiting].sort((a, b) => a.index - b.index)
      await applyBudget(pending, yieldedChars, stage)
      for (; nextToYield < calls.length; nextToYield++) {
        const call = calls[nextToYield]!
        if (call.status !== 'completed' || !call.result) break
        call.status = 'yielded'
        waiting.delete(call)
        yieldedChars += countedChars(call)
        const blob = call.blob ? { blob_id: call.blob.blobId } : {}
        emit({ type: 'tool.result', tool_use_id: call.block.id, result: call.result, ...blob })
      }
    }
    maybeFinish()
  }

  function maybeFinish(): void {
    if (done || !yielder.inputEnded || !options.canFinish()) return
    if (nextToYield < calls.length) return
    done = true
    const { status, context } = options.beforeFinish()
    emit({ type: 'run.completed', status })
    const blobs = calls.flatMap((call) =>
      call.blob ? [{ tool_use_id: call.block.id, blob_id: call.blob.blobId, size: call.blob.size }] : [],
    )
    resolveFinished({ status, results: calls.map((call) => call.result!), blobs, context })
  }

  const yielder = {
    inputEnded: false,
    started: false,
    finished,
    start(toolUseIds: string[]): void {
      yielder.started = true
      emit({ type: 'run.started', tool_use_ids: toolUseIds })
    },
    drain(): void {
      void drains.run(drainOnce)
    },
    /** A call has its outcome: its result will be sized and yielded in block order. */
    completed(call: TrackedCall): void {
      waiting.add(call)
      yielder.drain()
    },
    results(): ToolResultBlock[] {
      return calls.filter((call) => call.status === 'yielded').map((call) => call.result!)
    },
  }
  return yielder
}
