import type { BlobInfo } from '../../../src/results/blob-store.js'
import type { OpenPermissionRequest, ResolvedPermission } from '../../../src/runs/control/open-permission-requests.js'
import type { RunRecord } from '../../../src/stores/run-store.js'

export const eventsUrl = (runId: string) => `/v1/runs/${runId}/events`

const blobReference = (blob: BlobInfo) => ({ ...blob, url: `/v1/blobs/${blob.blob_id}` })

/** The 200 of a `wait: true` run: results plus the user message to send back to the model. */
export function toRunResult(record: RunRecord) {
  return {
    run_id: record.runId,
    status: record.status,
    ...(record.cancelReason === undefined ? {} : { cancel_reason: record.cancelReason }),
    session_id: record.sessionId,
    results: record.results,
    message: userMessage(record),
    blobs: record.blobs.map(blobReference),
  }
}

const userMessage = (record: RunRecord) => ({ role: 'user' as const, content: record.results })

/** GET /v1/runs/{run_id}: `message` once the run is over, the asks still open while it runs. */
export function toRunView(
  record: RunRecord,
  permissionRequests: OpenPermissionRequest[],
  resolved: ResolvedPermission[],
) {
  return {
    run_id: record.runId,
    status: record.status,
    ...(record.cancelReason === undefined ? {} : { cancel_reason: record.cancelReason }),
    session_id: record.sessionId,
    tool_use_ids: record.toolUseIds,
    results: record.results,
    ...(record.status === 'running' ? {} : { message: userMessage(record) }),
    permission_requests: record.status === 'running' ? permissionRequests : [],
    resolved_permissions: resolved,
    blobs: record.blobs.map(blobReference),
    created_at: record.createdAt,
    ...(record.finishedAt === undefined ? {} : { finished_at: record.finishedAt }),
    events_url: eventsUrl(record.runId),
  }
}
