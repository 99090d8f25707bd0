// Pins Bash's spill to a blob: past 30,000 characters the result is a persisted-output message and the blob holds every byte.
import { stat } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { formatThrownError } from '../../../src/executor/format-thrown-error.js'
import { type BashOutput, BashTool } from '../../../src/tools/bash/bash-tool.js'
import { createTestContext, createTestWorkspace, type TestWorkspace } from '../../helpers/tool-context.js'
import { runTool } from '../helpers.js'

let workspace: TestWorkspace
beforeEach(async () => {
  workspace = await createTestWorkspace()
})
afterEach(() => workspace.cleanup())

const context = (toolUseId: string) =>
  createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot, toolUseId })

describe('Bash large output', () => {
  it('persists 20 MB of output to a blob of exactly that size', async () => {
    const size = 20_000_000
    const result = await runTool(BashTool, { command: `head -c ${size} /dev/zero | tr '\\0' a` }, context('big'))
    expect(result.ok).toBe(true)
    const data = (result as { data: BashOutput }).data
    const mapped = BashTool.mapToolResult(data)
    expect(mapped.blob).toBeDefined()
    expect(mapped.blob?.size).toBe(size)
    expect((await stat(mapped.blob?.path as string)).size).toBe(size)
    expect(mapped.content).toMatch(
      /^<persisted-output>\nOutput too large \(19\.1MB\)\. Full output saved to: .*run-1-big\.txt\n\nPreview \(first 2KB\):\na{2000}\n\.\.\.\n<\/persisted-output>$/,
    )
  })

  it('keeps output up to the threshold inline', async () => {
    const result = await runTool(BashTool, { command: 'head -c 30000 /dev/zero | tr "\\0" b' }, context('small'))
    const mapped = BashTool.mapToolResult((result as { data: BashOutput }).data)
    expect(mapped.blob).toBeUndefined()
    expect(mapped.content).toBe('b'.repeat(30_000))
  })

  it('points a failing command with huge output at its blob', async () => {
    const result = await runTool(BashTool, { command: 'seq 1 100000; exit 2' }, context('fail'))
    const text = formatThrownError((result as { error: unknown }).error)
    expect(text).toMatch(
      /^Exit code 2\n<persisted-output>\nOutput too large \(575\.1KB\)\. Full output saved to: .*run-1-fail\.txt/,
    )
  })
})
