import { createHash } from 'node:crypto'

// Leaves room for the longest extension (`.json`) inside the 200-character blob id limit.
const MAX_BASE_LENGTH = 195
const SAFE = /^[A-Za-z0-9_-]+$/
const HASH_LENGTH = 16

/**
 * The blob id (without extension) for one result of one run. The run id is part of it because
 * blobs are created exclusively: a client that reuses tool_use ids across runs (`t1`) must not
 * be shown another run's stored output.
 *
 * Distinct ids give distinct blob ids (docs/adr/0103-injective-result-blob-ids.md): a safe, short
 * pair is kept as it is; any other has its unsafe characters made `_`, is cut to fit, and gets
 * `.` and a hash of the original pair. Kept ids never hold a `.`, so the two forms cannot meet,
 * and `x.1` and `x_1` no longer share one blob. (Run ids are `run_<uuid>`, one length, so the
 * `-` between the parts is unambiguous.)
 */
export function resultBlobId(runId: string, toolUseId: string): string {
  if (runId === '' || toolUseId === '') throw new TypeError('Expected `runId` and `toolUseId` to be non-empty')
  const joined = `${runId}-${toolUseId}`
  if (SAFE.test(joined) && joined.length <= MAX_BASE_LENGTH) return joined
  const hash = createHash('sha256').update(`${runId}\0${toolUseId}`).digest('hex').slice(0, HASH_LENGTH)
  const readable = joined.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, MAX_BASE_LENGTH - HASH_LENGTH - 1)
  return `${readable}.${hash}`
}
