// Leaves room for the longest extension (`.json`) inside the 200-character blob id limit.
const MAX_BASE_LENGTH = 195

/**
 * The blob id (without extension) for one result of one run. The run id is part of it because
 * blobs are created exclusively: a client that reuses tool_use ids across runs (`t1`) must not
 * be shown another run's stored output. Characters a blob id may not hold become `_`.
 */
export function resultBlobId(runId: string, toolUseId: string): string {
  if (runId === '' || toolUseId === '') throw new TypeError('Expected `runId` and `toolUseId` to be non-empty')
  return `${runId}-${toolUseId}`.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_BASE_LENGTH)
}
