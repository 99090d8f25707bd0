// Pins per-tool result processing: empty text, errors untouched, images inline, text/JSON persistence.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ImageBlock, ToolResultBlock } from '../../src/messages/content-blocks.js'
import { createFileBlobStore, type FileBlobStore } from '../../src/results/file-blob-store.js'
import { persistedOutputMessage } from '../../src/results/persisted-output.js'
import { processToolResult } from '../../src/results/process-tool-result.js'

let root: string
let blobs: FileBlobStore

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'toolexec-results-'))
  blobs = createFileBlobStore({ root, ttlMs: 60_000 })
})

afterEach(async () => {
  await rm(root, { recursive: true, force: true })
})

const image: ImageBlock = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }

function run(block: ToolResultBlock, threshold = 100) {
  return processToolResult({ block, toolName: 'Bash', threshold, tenant: 'acme', blobId: 'run1-t1', blobs })
}

describe('processToolResult', () => {
  it.each([[''], [[]], [[{ type: 'text' as const, text: '' }]]])('replaces empty content %j', async (content) => {
    const { block, blob } = await run({ type: 'tool_result', tool_use_id: 't1', content })
    expect(block).toEqual({ type: 'tool_result', tool_use_id: 't1', content: '(Bash completed with no output)' })
    expect(blob).toBeUndefined()
  })

  it('keeps whitespace-only output as it is', async () => {
    const { block } = await run({ type: 'tool_result', tool_use_id: 't1', content: '  \n' })
    expect(block.content).toBe('  \n')
  })

  it('never rewrites or persists an error, even an empty or oversized one', async () => {
    for (const content of ['', 'e'.repeat(500)]) {
      const input: ToolResultBlock = { type: 'tool_result', tool_use_id: 't1', content, is_error: true }
      const { block, blob } = await run(input)
      expect(block).toEqual(input)
      expect(blob).toBeUndefined()
    }
  })

  it('never persists content holding an image, whatever its size', async () => {
    const content = [{ type: 'text' as const, text: 'x'.repeat(500) }, image]
    const { block, blob } = await run({ type: 'tool_result', tool_use_id: 't1', content })
    expect(block.content).toBe(content)
    expect(blob).toBeUndefined()
  })

  it('keeps content at the threshold inline and drops a stray is_error: false', async () => {
    const input = { type: 'tool_result', tool_use_id: 't1', content: 'y'.repeat(100), is_error: false }
    const { block, blob } = await run(input as unknown as ToolResultBlock)
    expect(block).toEqual({ type: 'tool_result', tool_use_id: 't1', content: 'y'.repeat(100) })
    expect(Object.keys(block)).toEqual(['type', 'tool_use_id', 'content'])
    expect(blob).toBeUndefined()
  })

  it('persists oversized text as .txt and returns the exact preview message', async () => {
    const content = `${'line\n'.repeat(1_000)}tail`
    const { block, blob } = await run({ type: 'tool_result', tool_use_id: 't1', content })
    const expectedPath = path.join(root, 'acme', 'run1-t1.txt')
    expect(blob).toEqual({ blobId: 'run1-t1.txt', path: expectedPath, size: content.length })
    expect(await readFile(expectedPath, 'utf8')).toBe(content)
    const preview = 'line\n'.repeat(400).slice(0, -1)
    expect(block).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: persistedOutputMessage({ path: expectedPath, size: content.length, preview, hasMore: true }),
    })
    expect(block.content).toContain('Output too large (4.9KB)')
  })

  it('persists oversized block arrays as 2-space JSON and previews the JSON', async () => {
    const content = [{ type: 'text' as const, text: 'z'.repeat(150) }]
    const { block, blob } = await run({ type: 'tool_result', tool_use_id: 't1', content })
    const json = JSON.stringify(content, null, 2)
    expect(blob?.blobId).toBe('run1-t1.json')
    expect(await readFile(blob!.path, 'utf8')).toBe(json)
    expect(block.content).toBe(
      persistedOutputMessage({ path: blob!.path, size: Buffer.byteLength(json), preview: json, hasMore: false }),
    )
  })

  it('reuses an existing blob: the message reports the stored file', async () => {
    await blobs.write('acme', 'run1-t1.txt', 'first'.repeat(100))
    const { blob } = await run({ type: 'tool_result', tool_use_id: 't1', content: 'second'.repeat(100) })
    expect(blob?.size).toBe(500)
    expect(await readFile(blob!.path, 'utf8')).toBe('first'.repeat(100))
  })

  it('never persists with an Infinity threshold', async () => {
    const content = 'r'.repeat(200_000)
    const { block, blob } = await run({ type: 'tool_result', tool_use_id: 't1', content }, Number.POSITIVE_INFINITY)
    expect(block.content).toBe(content)
    expect(blob).toBeUndefined()
  })
})
