// Pins the output collector: threshold, spill of every byte, UTF-8 split across chunks, capped progress.
import { readFile } from 'node:fs/promises'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFileBlobStore } from '../../../src/results/file-blob-store.js'
import { createOutputCollector } from '../../../src/tools/bash/output-collector.js'
import { createTestWorkspace, type TestWorkspace } from '../../helpers/tool-context.js'

let workspace: TestWorkspace
beforeEach(async () => {
  workspace = await createTestWorkspace()
})
afterEach(() => workspace.cleanup())

function collector(thresholdChars: number, onProgress?: (progress: { output: string; omittedChars?: number }) => void) {
  const blobs = createFileBlobStore({ root: workspace.blobRoot, ttlMs: 60_000 })
  return createOutputCollector({
    thresholdChars,
    openBlob: () => blobs.openWriteStream('tenant-a', 'run-1-collect.txt'),
    onProgress,
    progressMaxChars: 10,
  })
}

async function feed(target: ReturnType<typeof collector>, chunks: Buffer[]) {
  for (const chunk of chunks) target.write(chunk)
  target.end()
  return target.result()
}

describe('createOutputCollector', () => {
  it('keeps output up to the threshold in memory, decoding characters split across chunks', async () => {
    const euro = Buffer.from('€') // 3 bytes
    const result = await feed(collector(100), [
      Buffer.from('a'),
      euro.subarray(0, 2),
      euro.subarray(2),
      Buffer.from('b'),
    ])
    expect(result).toEqual({ spilled: false, text: 'a€b', bytes: 5 })
  })

  it('spills every byte to the blob once past the threshold and keeps only the start', async () => {
    const chunks = Array.from({ length: 50 }, (_, index) => Buffer.from(`line ${index}\n`))
    const result = await feed(collector(20), chunks)
    const all = Buffer.concat(chunks)
    expect(result.spilled).toBe(true)
    if (!result.spilled) return
    expect(result.bytes).toBe(all.length)
    expect(result.head).toBe(all.toString().slice(0, 20))
    expect(await readFile(result.blob.path)).toEqual(all)
    expect(result.blob.size).toBe(all.length)
  })

  it('merges progress and caps each event, counting what it left out', async () => {
    const events: { output: string; omittedChars?: number }[] = []
    await feed(
      collector(1000, (progress) => events.push(progress)),
      [Buffer.from('0123456'), Buffer.from('789abcdef')],
    )
    expect(events).toEqual([{ output: '0123456789', omittedChars: 6 }])
  })
})
