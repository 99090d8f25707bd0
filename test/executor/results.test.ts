// Pins result handling inside a run (docs/design.md §5): per-tool persistence with the exact preview text,
// the per-run budget's choice of what to persist, and Read's exemption.
import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../src/tool/build-tool.js'
import type { AnyTool } from '../../src/tool/tool.js'
import { block, startRun } from './helpers.js'

const sizedTool = (name: string, maxResultSizeChars: number): AnyTool =>
  buildTool({
    name,
    ruleFamily: 'none',
    inputSchema: z.strictObject({ size: z.number(), char: z.string() }),
    maxResultSizeChars,
    description: async () => 'sized output',
    prompt: async () => 'sized output',
    isConcurrencySafe: () => true,
    async call(input: { size: number; char: string }) {
      return { data: input.char.repeat(input.size) }
    },
  }) as AnyTool

describe('per-tool threshold', () => {
  it('persists output over the threshold and shows the exact persisted-output preview', async () => {
    const lines = Array.from({ length: 4000 }, (_, i) => `line ${String(i).padStart(4, '0')}`).join('\n')
    const tool = buildTool({
      name: 'Lines',
      ruleFamily: 'none',
      inputSchema: z.strictObject({}),
      maxResultSizeChars: 30_000,
      description: async () => 'lines',
      prompt: async () => 'lines',
      call: async () => ({ data: lines }),
    }) as AnyTool
    const run = await startRun([tool], [block('big', 'Lines')])
    const outcome = await run.done()
    const [blob] = outcome.blobs
    expect(blob).toMatchObject({ tool_use_id: 'big', blob_id: 'run_test-big.txt', size: lines.length })
    const path = `${outcome.context.blobs.directory('default')}/run_test-big.txt`
    expect(await readFile(path, 'utf8')).toBe(lines)
    // 2,000 characters cut back to the last newline (past character 1,000).
    const preview = lines.slice(0, lines.lastIndexOf('\n', 2000))
    expect(outcome.results[0]!.content).toBe(
      `<persisted-output>\nOutput too large (39.1KB). Full output saved to: ${path}\n\nPreview (first 2KB):\n${preview}\n...\n</persisted-output>`,
    )
    expect(run.eventsOf('tool.result')[0]!.blob_id).toBe('run_test-big.txt')
  })

  it('never persists Read-like tools (threshold Infinity)', async () => {
    const run = await startRun(
      [sizedTool('Read', Number.POSITIVE_INFINITY)],
      [block('r', 'Read', { size: 80_000, char: 'r' })],
    )
    const outcome = await run.done()
    expect(outcome.blobs).toEqual([])
    expect(outcome.results[0]!.content).toHaveLength(80_000)
  })
})

describe('failed calls that stored their output', () => {
  it('lists the blob of a Bash call that spilled its output and then failed', async () => {
    const { BashTool } = await import('../../src/tools/bash/bash-tool.js')
    const command = 'seq 1 20000; exit 3'
    const run = await startRun([BashTool as AnyTool], [block('fails', 'Bash', { command })])
    const outcome = await run.done()
    const result = outcome.results[0]!
    expect(result.is_error).toBe(true)
    expect(String(result.content)).toMatch(/^Exit code 3\n<persisted-output>\nOutput too large/)
    expect(outcome.blobs).toEqual([expect.objectContaining({ tool_use_id: 'fails', blob_id: 'run_test-fails.txt' })])
    expect(run.eventsOf('tool.result')[0]!.blob_id).toBe('run_test-fails.txt')
    const path = `${outcome.context.blobs.directory('default')}/run_test-fails.txt`
    expect((await readFile(path, 'utf8')).split('\n').at(-2)).toBe('20000')
  })
})

describe('per-run budget', () => {
  it('persists the largest results first until the rest fits, leaving Read alone', async () => {
    const tools = [sizedTool('Echo', 50_000), sizedTool('Read', Number.POSITIVE_INFINITY)]
    const sizes = [41_000, 45_000, 44_000, 43_000, 42_000]
    const blocks = [
      ...sizes.map((size, i) => block(`e${i}`, 'Echo', { size, char: String(i) })),
      block('read', 'Read', { size: 150_000, char: 'r' }),
    ]
    const run = await startRun(tools, blocks, { maxResultChars: 200_000 })
    const outcome = await run.done()
    // 215,000 counted; persisting the 45,000 one brings it to about 172,000: nothing else moves.
    expect(outcome.blobs.map((blob) => blob.tool_use_id)).toEqual(['e1'])
    expect(String(outcome.results[1]!.content)).toMatch(/^<persisted-output>\nOutput too large \(43\.9KB\)/)
    expect(outcome.results[5]!.content).toHaveLength(150_000)
  })

  it('takes the budget from the request', async () => {
    const blocks = [block('a', 'Echo', { size: 3_000, char: 'a' }), block('b', 'Echo', { size: 4_000, char: 'b' })]
    const run = await startRun([sizedTool('Echo', 50_000)], blocks, { maxResultChars: 6_000 })
    const outcome = await run.done()
    expect(outcome.blobs.map((blob) => blob.tool_use_id)).toEqual(['b'])
  })
})
