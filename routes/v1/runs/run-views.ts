import type { BlobInfo } from '../../../src/results/blob-store.js'
import type { RunRecord } from '../../../src/stores/run-store.js'

export const eventsUrl = (runId: string) => `/v1/runs/${runId}/events`

const blobReference = (blob: BlobInfo) => ({ ...blob, url: `/v1/blobs/${blob.blob_id}` })

/** The 200 of a `wait: true` run: results plus the user message to send back to the model. */
export function toRunResult(record: RunRecord) {
  return {
    run_id: record.runId,
    status: record.status,
    session_id: record.sessionId,
    results: record.results,
    message: { role: 'user' as const, content: record.results },
    blobs: record.blobs.map(blobReference),
  }
}

export function toRunView(record: RunRecord) {
  return {
    run_id: record.runId,
    status: record.status,
    session_id: record.sessionId,
    tool_use_ids: record.toolUseIds,
    results: record.results,
    blobs: record.blobs.map(blobReference),
    created_at: record.createdAt,
    ...(record.finishedAt === undefined ? {} : { finished_at: record.finishedAt }),
    events_url: eventsUrl(record.runId),
  }
}
