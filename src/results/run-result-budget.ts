import { contentLength, hasImageBlock, type ToolResultBlock } from '../messages/content-blocks.js'
import type { BlobRef } from './blob-store.js'
import { PREVIEW_LIMIT_CHARS } from './persisted-output.js'

/** A result that has finished but has not been handed out yet. */
export type RunBudgetCandidate = {
  block: ToolResultBlock
  /** Characters this result adds to the message (`contentLength(block.content)`). */
  chars: number
  /** Outside the budget altogether: neither counted nor replaced (Read's results). */
  exempt: boolean
  /** Already a `<persisted-output>` message (per-tool threshold, Bash spill): counted, never re-persisted. */
  alreadyPersisted?: boolean
}

export type RunBudgetInput = {
  candidates: readonly RunBudgetCandidate[]
  /** Characters of counted results already handed out; they can no longer be replaced. */
  yieldedChars: number
  /** Most characters all counted results of the run may add up to. */
  budget: number
  /** Writes one candidate to a blob and returns its replacement (typically via `processToolResult`). */
  persist: (candidate: RunBudgetCandidate, index: number) => Promise<{ block: ToolResultBlock; blob?: BlobRef }>
}

export type RunBudgetOutcome = {
  /** The candidates' blocks, in the order given, with persisted ones replaced. */
  blocks: ToolResultBlock[]
  /** Which candidates were persisted, in the order they were. */
  persisted: Array<{ index: number; blob?: BlobRef }>
  /** yieldedChars plus the counted candidates after replacement. */
  countedChars: number
}

/**
 * The per-run ("per-message") budget of docs/design.md §5. What counts: every result of the run except
 * exempt ones (Read), with `chars` as given and a replacement counted at its own length.
 * What may be replaced: a counted result that is not an error, holds no image, is not already
 * persisted, and is longer than a preview (persisting anything shorter would make it longer).
 * While the total is over the budget, the largest replaceable candidate (ties: the earlier one)
 * is persisted; each candidate is persisted at most once, so the loop always ends, even when
 * `yieldedChars` alone is over the budget.
 */
export async function applyRunBudget(input: RunBudgetInput): Promise<RunBudgetOutcome> {
  const { candidates, budget } = input
  if (!(budget >= 0)) throw new TypeError(`Expected \`budget\` to be a non-negative number, got ${budget}`)
  const blocks = candidates.map((candidate) => candidate.block)
  const counted = candidates.map((candidate) => (candidate.exempt ? 0 : candidate.chars))
  const replaceable = candidates.map(isReplaceable)
  const persisted: RunBudgetOutcome['persisted'] = []
  let total = input.yieldedChars + counted.reduce((sum, chars) => sum + chars, 0)

  while (total > budget) {
    const index = largestReplaceable(counted, replaceable)
    if (index === -1) break
    replaceable[index] = false
    const replacement = await input.persist(candidates[index]!, index)
    const replacementChars = contentLength(replacement.block.content)
    total += replacementChars - counted[index]!
    counted[index] = replacementChars
    blocks[index] = replacement.block
    persisted.push(replacement.blob ? { index, blob: replacement.blob } : { index })
  }
  return { blocks, persisted, countedChars: total }
}

function isReplaceable(candidate: RunBudgetCandidate): boolean {
  return (
    !candidate.exempt &&
    candidate.alreadyPersisted !== true &&
    candidate.block.is_error !== true &&
    !hasImageBlock(candidate.block.content) &&
    candidate.chars > PREVIEW_LIMIT_CHARS
  )
}

function largestReplaceable(counted: readonly number[], replaceable: readonly boolean[]): number {
  let best = -1
  for (let index = 0; index < counted.length; index++) {
    // Strictly greater: on a tie the earlier block stays chosen.
    if (replaceable[index] && (best === -1 || counted[index]! > counted[best]!)) best = index
  }
  return best
}
