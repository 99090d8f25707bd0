import { contentLength, hasImageBlock, type ToolResultBlock, toolResult } from '../messages/content-blocks.js'
import { emptyOutputMessage } from '../messages/tool-error-messages.js'
import type { BlobRef, BlobStore } from './blob-store.js'
import { buildPreview, persistedOutputMessage } from './persisted-output.js'

export type ProcessToolResultInput = {
  block: ToolResultBlock
  /** Named in the empty-output text: `(NAME completed with no output)`. */
  toolName: string
  /** From `persistenceThreshold(tool)`; content longer than this goes to a blob. */
  threshold: number
  tenant: string
  /** Blob file name without extension; `.txt` or `.json` is added by content kind. */
  blobId: string
  blobs: BlobStore
}

export type ProcessedToolResult = { block: ToolResultBlock; blob?: BlobRef }

/**
 * Applies the per-tool size rules of docs/design.md §5 to one mapped result:
 * 1. error results pass through untouched (never rewritten, never persisted);
 * 2. empty content (no characters and no image) becomes `(NAME completed with no output)`;
 * 3. content with an image block stays inline whatever its size;
 * 4. content longer than `threshold` is written to the tenant's blob store and replaced by the
 *    `<persisted-output>` message.
 * The returned block carries exactly the tool_result fields, so it can be forwarded unchanged.
 */
export async function processToolResult(input: ProcessToolResultInput): Promise<ProcessedToolResult> {
  const { block, toolName, threshold } = input
  const content = block.content
  if (block.is_error === true) return { block: toolResult(block.tool_use_id, content, true) }
  if (hasImageBlock(content)) return { block: toolResult(block.tool_use_id, content) }
  if (contentLength(content) === 0) {
    return { block: toolResult(block.tool_use_id, emptyOutputMessage(toolName)) }
  }
  if (contentLength(content) <= threshold) return { block: toolResult(block.tool_use_id, content) }

  // Text is stored as it is; block arrays as 2-space JSON, which is also what the preview shows.
  const isText = typeof content === 'string'
  const stored = isText ? content : JSON.stringify(content, null, 2)
  const blob = await input.blobs.write(input.tenant, `${input.blobId}.${isText ? 'txt' : 'json'}`, stored)
  const message = persistedOutputMessage({ path: blob.path, size: blob.size, ...buildPreview(stored) })
  return { block: toolResult(block.tool_use_id, message), blob }
}
