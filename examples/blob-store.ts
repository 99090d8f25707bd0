import type { Config } from '../src/config/config.js'
import type { ToolResultBlock } from '../src/messages/content-blocks.js'
import { createFileBlobStore } from '../src/results/file-blob-store.js'
import { processToolResult } from '../src/results/process-tool-result.js'
import { resultBlobId } from '../src/results/result-blob-id.js'
import { persistenceThreshold } from '../src/results/result-threshold.js'

/** One raw result through the blob store: small ones come back as they are, large ones as a preview. */
export async function persistLargeResult(
  config: Config,
  rawResult: ToolResultBlock,
  tool: { name: string; maxResultSizeChars: number },
  tenant: string,
  runId: string,
) {
  const blobs = createFileBlobStore({ root: config.blobDir, ttlMs: config.blobTtlMs })
  blobs.startSweeper(60 * 60 * 1000)

  const { block, blob } = await processToolResult({
    block: rawResult,
    toolName: tool.name,
    threshold: persistenceThreshold(tool),
    tenant,
    blobId: resultBlobId(runId, rawResult.tool_use_id),
    blobs,
  })

  // at shutdown
  blobs.close()
  return { block, blob }
}
