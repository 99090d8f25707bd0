import { contentLength, toolResult } from '../messages/content-blocks.js'
import { pipelineFaultMessage } from '../messages/tool-error-messages.js'
import type { BlobStore } from '../results/blob-store.js'
import { processToolResult } from '../results/process-tool-result.js'
import { resultBlobId } from '../results/result-blob-id.js'
import { persistenceThreshold } from '../results/result-threshold.js'
import { applyRunBudget } from '../results/run-result-budget.js'
import type { TrackedCall } from './tracked-call.js'

type ResultStageOptions = { runId: string; tenant: string; blobs: BlobStore; budget: number }

/**
 * Step 8 for one completed call: the per-tool threshold (and the empty-output text). Read's
 * results (threshold Infinity) and engine-made errors are exempt from the per-run budget.
 */
export function applyToolThreshold(call: TrackedCall, options: ResultStageOptions): Promise<void> | undefined {
  const outcome = call.outcome!
  const raw = toolResult(call.block.id, outcome.content, outcome.isError)
  const length = contentLength(outcome.content)
  if (call.tool && !outcome.isError && !outcome.blob && length > 0 && length <= persistenceThreshold(call.tool)) {
    // The common case needs no blob id, no store and no await.
    call.result = raw
    // The result is all a finished call keeps (docs/adr/0433-a-call-carries-what-its-end-needs.md).
    call.outcome = undefined
    return undefined
  }
  return storeOrFail(call, options)
}

async function storeOrFail(call: TrackedCall, options: ResultStageOptions): Promise<void> {
  try {
    await thresholdOrThrow(call, options)
  } catch (error) {
    // A blob that cannot be written must not cost the call its result.
    const message = `the result could not be stored: ${error instanceof Error ? error.message : String(error)}`
    call.result = toolResult(call.block.id, pipelineFaultMessage(call.tool?.name ?? call.block.name, message), true)
  }
  call.outcome = undefined
}

async function thresholdOrThrow(call: TrackedCall, options: ResultStageOptions): Promise<void> {
  const outcome = call.outcome!
  const raw = toolResult(call.block.id, outcome.content, outcome.isError)
  const name = call.tool?.name ?? call.block.name
  if (outcome.blob || !call.tool || outcome.isError) {
    call.result = raw
    call.blob = outcome.blob
    return
  }
  const threshold = persistenceThreshold(call.tool)
  const processed = await processToolResult({
    block: raw,
    toolName: name,
    threshold,
    tenant: options.tenant,
    blobId: resultBlobId(options.runId, call.block.id),
    blobs: options.blobs,
  })
  call.result = processed.block
  call.blob = processed.blob
}

/**
 * The per-run budget, applied each time results are about to be yielded, over every result that
 * is finished but not yet yielded (the first `count` of `waiting`; largest first). Results already yielded are fixed: they count
 * but can no longer be replaced. See docs/adr/0004-run-budget-at-yield-time.md.
 */
export function applyBudget(
  waiting: readonly TrackedCall[],
  count: number,
  yieldedChars: number,
  options: ResultStageOptions,
): Promise<void> | undefined {
  let total = yieldedChars
  for (let index = 0; index < count; index++) total += countedChars(waiting[index]!)
  // Within budget (the common case): nothing to store, so nothing to await.
  if (total <= options.budget) return undefined
  // Largest first, ties in block order: the caller's list is in completion order and may grow
  // while the blobs are written, so the indices below are of this copy.
  return persistOverBudget(
    waiting.slice(0, count).sort((a, b) => a.index - b.index),
    yieldedChars,
    options,
  )
}

async function persistOverBudget(
  pending: readonly TrackedCall[],
  yieldedChars: number,
  options: ResultStageOptions,
): Promise<void> {
  const candidates = pending.map((call) => ({
    block: call.result!,
    chars: contentLength(call.result!.content),
    exempt: call.tool ? persistenceThreshold(call.tool) === Number.POSITIVE_INFINITY : false,
    alreadyPersisted: call.blob !== undefined,
  }))
  let outcome: Awaited<ReturnType<typeof applyRunBudget>>
  try {
    outcome = await applyRunBudget({
      candidates,
      yieldedChars,
      budget: options.budget,
      persist: (candidate, index) =>
        processToolResult({
          block: candidate.block,
          toolName: pending[index]!.tool?.name ?? pending[index]!.block.name,
          threshold: 0,
          tenant: options.tenant,
          blobId: resultBlobId(options.runId, pending[index]!.block.id),
          blobs: options.blobs,
        }),
    })
  } catch {
    // Over budget but the blob store failed: the results stay inline rather than be lost.
    return
  }
  for (const { index, blob } of outcome.persisted) {
    pending[index]!.result = outcome.blocks[index]!
    pending[index]!.blob = blob
  }
}

/** Characters a yielded result adds to the run's total (Read's results are not counted). */
export function countedChars(call: TrackedCall): number {
  if (call.tool && persistenceThreshold(call.tool) === Number.POSITIVE_INFINITY) return 0
  return contentLength(call.result!.content)
}
