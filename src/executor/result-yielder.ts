import { createSerialQueue } from '../async/serial-queue.js'
import type { ToolResultBlock } from '../messages/content-blocks.js'
import type { BlobInfo, BlobStore } from '../results/blob-store.js'
import type { RunSink } from './run-sink.js'
import { applyBudget, applyToolThreshold, countedChars } from './size-results.js'
import type { TrackedCall } from './tracked-call.js'

type YielderOptions = {
  runId: string
  calls: TrackedCall[]
  sink: RunSink
  /** The session's: context modifiers change cwd and state, never the tenant or its blob store. */
  tenant: string
  blobs: BlobStore
  budget: number
}

/**
 * Hands results out in block order: each completed call gets its size threshold applied, the
 * run budget is applied over what is finished but not yet handed out, and the contiguous head of
 * completed calls is yielded. Drains run one at a time because persisting a blob is asynchronous.
 * It decides nothing about the run's end: `allYielded` says whether every block so far is out.
 */
export function createResultYielder(options: YielderOptions) {
  const { calls, sink } = options
  const stage = { runId: options.runId, tenant: options.tenant, blobs: options.blobs, budget: options.budget }
  const drains = createSerialQueue()
  /** Passes queued or still storing: while there are none, a pass runs at once. */
  let unsettled = 0
  const settledOne = () => {
    unsettled--
  }
  /** Queues a pass behind the ones before it and counts it until it settles. */
  function queued(task: () => Promise<void> | undefined): Promise<unknown> {
    unsettled++
    const pass = drains.run(task)
    pass.then(settledOne, settledOne)
    return pass
  }
  let yieldedChars = 0
  /** Everything before this index has been yielded. */
  let nextToYield = 0
  /**
   * Completed, not yet yielded, in completion order; yielded calls are swept out after each pass.
   * An array and a flag on the call rather than Sets: deleting from a small Set reallocated its
   * table on every call (docs/adr/0442).
   */
  const waiting: TrackedCall[] = []
  /** How many of `waiting` are live: the array keeps its length, so a pass allocates no backing store. */
  let waitingCount = 0

  /**
   * One pass. Synchronous unless a result must be stored as a blob or the run budget is exceeded:
   * the common pass allocates no async frame and no awaited promise (docs/adr/0310-the-engines-common-path-awaits-nothing.md).
   */
  function drainOnce(): Promise<void> | undefined {
    for (let index = 0; index < waitingCount; index++) {
      const call = waiting[index]!
      if (call.result) continue
      const storing = applyToolThreshold(call, stage)
      if (storing) return storing.then(drainOnce)
    }
    if (calls[nextToYield]?.status !== 'completed') return tellHeld()
    const budgeting = applyBudget(waiting, waitingCount, yieldedChars, stage)
    if (budgeting) return budgeting.then(yieldHead)
    return yieldHead()
  }

  /** Hands out the contiguous head of completed, sized calls, in block order. */
  function yieldHead(): undefined {
    for (; nextToYield < calls.length; nextToYield++) {
      const call = calls[nextToYield]!
      if (call.status !== 'completed' || !call.result) break
      call.status = 'yielded'
      yieldedChars += countedChars(call)
      sink.result(resultEvent(call, call.result))
    }
    sweepYielded()
    return tellHeld()
  }

  /** Drops the yielded calls from `waiting`, in place. */
  function sweepYielded(): void {
    let kept = 0
    for (let index = 0; index < waitingCount; index++) {
      const call = waiting[index]!
      if (call.status !== 'yielded') waiting[kept++] = call
    }
    waitingCount = kept
  }

  /** Results sized but waiting behind an unfinished block: the sink hears of each once. */
  function tellHeld(): undefined {
    if (!sink.held) return undefined
    for (let index = 0; index < waitingCount; index++) {
      const call = waiting[index]!
      if (!call.result || call.heldTold) continue
      call.heldTold = true
      sink.held(resultEvent(call, call.result))
    }
    return undefined
  }

  return {
    /**
     * Sizes and yields what it can. Runs the pass at once when no earlier pass is unsettled and
     * returns undefined if it finished synchronously; otherwise a promise of the pass, which
     * waits for the passes before it (docs/adr/0310-the-engines-common-path-awaits-nothing.md).
     */
    drain(): Promise<unknown> | undefined {
      if (unsettled > 0) return queued(drainOnce)
      const pass = drainOnce()
      return pass === undefined ? undefined : queued(already(pass))
    },
    /** A call has its outcome: its result will be sized and yielded in block order by the next drain. */
    completed(call: TrackedCall): void {
      if (waitingCount === waiting.length) waiting.push(call)
      else waiting[waitingCount] = call
      waitingCount++
    },
    /** The run is over: `waiting` keeps no stale references to its calls (docs/adr/0436). */
    release(): void {
      waiting.length = 0
      waitingCount = 0
    },
    get allYielded(): boolean {
      return nextToYield === calls.length
    },
    results(): ToolResultBlock[] {
      return calls.filter((call) => call.status === 'yielded').map((call) => call.result!)
    },
    blobs(): BlobInfo[] {
      const stored: BlobInfo[] = []
      for (const call of calls) {
        if (call.blob) stored.push({ tool_use_id: call.block.id, blob_id: call.blob.blobId, size: call.blob.size })
      }
      return stored
    },
  }
}

/**
 * A task that hands back a pass already running. Made here, not in `drain`: a closure there over
 * `pass` would make `drain` allocate a scope on every call, synchronous passes too (docs/adr/0433).
 */
function already(pass: Promise<void>): () => Promise<void> {
  return () => pass
}

/** The event of a result, with its blob's id when it was stored (no spread of an empty object). */
function resultEvent(call: TrackedCall, result: ToolResultBlock) {
  const id = call.block.id
  return call.blob
    ? { type: 'tool.result' as const, tool_use_id: id, result, blob_id: call.blob.blobId }
    : { type: 'tool.result' as const, tool_use_id: id, result }
}
