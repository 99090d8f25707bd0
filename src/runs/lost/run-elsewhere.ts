import { deferred } from '../../async/deferred.js'
import { ApiError } from '../../errors/api-error.js'
import type { RunStatus } from '../../events/run-event.js'
import type { RunRecord } from '../../stores/run-store.js'
import type { Stores } from '../../stores/stores.js'

/** How long a retry waits for the record of a run another instance has claimed but not yet stored. */
const RECORD_WAIT_MS = 10_000
const POLL_MS = 25

/**
 * The final record of a run another instance executes (an Idempotency-Key retry that landed
 * elsewhere, docs/adr/0111-run-leases.md): waits for its record to appear, then for run.completed. `status`: the record's when first read.
 */
export async function runElsewhere(
  stores: Stores,
  tenant: string,
  runId: string,
): Promise<{ status: RunStatus; finished: Promise<RunRecord> }> {
  const deadline = Date.now() + RECORD_WAIT_MS
  let record = await stores.runs.get(tenant, runId)
  while (!record && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
    record = await stores.runs.get(tenant, runId)
  }
  if (!record) throw new ApiError('run_not_found', `Run ${runId} has expired`)
  if (record.status !== 'running') return { status: record.status, finished: Promise.resolve(record) }
  const { promise, resolve, reject } = deferred<RunRecord>()
  const stop = await stores.events.subscribe(runId, 0, (event) => {
    if (event.type !== 'run.completed') return
    stores.runs
      .get(tenant, runId)
      .then((final) => (final ? resolve(final) : reject(new Error(`run ${runId} vanished`))), reject)
  })
  void promise.finally(stop).catch(() => undefined)
  return { status: record.status, finished: promise }
}
