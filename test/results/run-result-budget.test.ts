// Pins the per-run budget: largest fresh results persisted first, Read exempt, fixed yielded total.
import { describe, expect, it } from 'vitest'
import { type ToolResultBlock, toolResult } from '../../src/messages/content-blocks.js'
import { applyRunBudget, type RunBudgetCandidate } from '../../src/results/run-result-budget.js'

function candidate(id: string, chars: number, extra: Partial<RunBudgetCandidate> = {}): RunBudgetCandidate {
  return { block: toolResult(id, 'x'.repeat(chars)), chars, exempt: false, ...extra }
}

/** Replaces a result by a 100-character stand-in, recording which were asked for. */
function recordingPersist() {
  const calls: string[] = []
  const persist = async (item: RunBudgetCandidate) => {
    calls.push(item.block.tool_use_id)
    const block: ToolResultBlock = toolResult(item.block.tool_use_id, 'p'.repeat(100))
    return {
      block,
      blob: { blobId: `${item.block.tool_use_id}.txt`, path: `/b/${item.block.tool_use_id}.txt`, size: 1 },
    }
  }
  return { calls, persist }
}

describe('applyRunBudget', () => {
  it('changes nothing when everything fits', async () => {
    const { calls, persist } = recordingPersist()
    const candidates = [candidate('a', 40_000), candidate('b', 60_000)]
    const outcome = await applyRunBudget({ candidates, yieldedChars: 0, budget: 100_000, persist })
    expect(calls).toEqual([])
    expect(outcome).toEqual({ blocks: candidates.map((item) => item.block), persisted: [], countedChars: 100_000 })
  })

  it('persists the largest candidates first until the rest fits', async () => {
    const { calls, persist } = recordingPersist()
    const candidates = [candidate('a', 30_000), candidate('b', 45_000), candidate('c', 40_000), candidate('d', 10_000)]
    const outcome = await applyRunBudget({ candidates, yieldedChars: 20_000, budget: 70_000, persist })
    expect(calls).toEqual(['b', 'c'])
    expect(outcome.persisted.map((entry) => entry.index)).toEqual([1, 2])
    expect(outcome.persisted[0]?.blob?.blobId).toBe('b.txt')
    expect(outcome.blocks[0]).toBe(candidates[0]?.block)
    expect(outcome.blocks[1]?.content).toBe('p'.repeat(100))
    expect(outcome.countedChars).toBe(20_000 + 30_000 + 100 + 100 + 10_000)
  })

  it('picks the earlier block on a tie', async () => {
    const { calls, persist } = recordingPersist()
    const candidates = [candidate('a', 30_000), candidate('b', 30_000)]
    await applyRunBudget({ candidates, yieldedChars: 0, budget: 50_000, persist })
    expect(calls).toEqual(['a'])
  })

  it('neither counts nor replaces Read results (exempt)', async () => {
    const { calls, persist } = recordingPersist()
    const candidates = [candidate('read', 150_000, { exempt: true }), candidate('bash', 30_000)]
    const outcome = await applyRunBudget({ candidates, yieldedChars: 0, budget: 50_000, persist })
    expect(calls).toEqual([])
    expect(outcome.countedChars).toBe(30_000)

    const over = await applyRunBudget({ candidates, yieldedChars: 0, budget: 20_000, persist })
    expect(calls).toEqual(['bash'])
    expect(over.blocks[0]).toBe(candidates[0]?.block)
  })

  it('counts errors, images and already persisted results but never replaces them', async () => {
    const { calls, persist } = recordingPersist()
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'AA==' },
    }
    const candidates: RunBudgetCandidate[] = [
      { block: toolResult('error', 'e'.repeat(40_000), true), chars: 40_000, exempt: false },
      { block: toolResult('image', [{ type: 'text', text: 'i'.repeat(40_000) }, image]), chars: 40_000, exempt: false },
      candidate('persisted', 40_000, { alreadyPersisted: true }),
      candidate('fresh', 10_000),
    ]
    const outcome = await applyRunBudget({ candidates, yieldedChars: 0, budget: 100_000, persist })
    expect(calls).toEqual(['fresh'])
    expect(outcome.countedChars).toBe(120_100)
  })

  it('with yieldedChars already over, persists every fresh result worth persisting and stops', async () => {
    const { calls, persist } = recordingPersist()
    const candidates = [candidate('small', 1_500), candidate('big', 30_000), candidate('mid', 5_000)]
    const outcome = await applyRunBudget({ candidates, yieldedChars: 250_000, budget: 200_000, persist })
    expect(calls).toEqual(['big', 'mid'])
    expect(outcome.blocks[0]).toBe(candidates[0]?.block)
    expect(outcome.countedChars).toBe(250_000 + 1_500 + 100 + 100)
  })

  it('keeps a persist callback’s answer even when it declines (no blob)', async () => {
    const persist = async (item: RunBudgetCandidate) => ({ block: item.block })
    const candidates = [candidate('a', 30_000), candidate('b', 20_000)]
    const outcome = await applyRunBudget({ candidates, yieldedChars: 0, budget: 10_000, persist })
    expect(outcome.persisted).toEqual([{ index: 0 }, { index: 1 }])
    expect(outcome.countedChars).toBe(50_000)
  })
})
