import { ApiError } from '../../errors/api-error.js'
import type { CancelMode } from '../../executor/run-options.js'
import type { RunCoordination } from '../../stores/run-coordination.js'
import type { RunRecord } from '../../stores/run-store.js'
import type { Stores } from '../../stores/stores.js'
import type { LiveRun } from '../live-run.js'
import { openPermissionRequests } from './open-permission-requests.js'
import type { PermissionAnswer } from './permission-broker.js'
import type { RemoteControl } from './remote-control.js'

/**
 * Cancels and permission answers for a run the caller has read (its tenant checked): applied here
 * when the run executes here, sent to the instance executing it otherwise
 * (docs/adr/0179-one-control-channel-per-instance.md).
 */
export function createRunControl(
  live: ReadonlyMap<string, LiveRun>,
  coordination: RunCoordination | undefined,
  stores: Stores,
) {
  const sendRemote = async (runId: string, message: RemoteControl) =>
    (await coordination?.send(runId, message)) === true

  return {
    async cancel(record: RunRecord, mode: CancelMode): Promise<void> {
      const run = live.get(record.runId)
      if (run) run.cancel(mode)
      else if (record.status === 'running') await sendRemote(record.runId, { kind: 'cancel', mode })
    },
    async answer(record: RunRecord, requestId: string, answer: PermissionAnswer): Promise<void> {
      const { runId } = record
      const run = live.get(runId)
      let applied = run ? run.answerPermission(requestId, answer) : false
      if (!run && record.status === 'running' && coordination) {
        const message: RemoteControl = { kind: 'answer', requestId, answer }
        const sent = await coordination.send(runId, message)
        applied = sent === true
        // No instance holds the run (its instance was lost, no survivor has it yet), or a survivor
        // holds it but has not launched it yet: the answer is kept for the survivor, which reads
        // kept answers once the run is live, then sent again in case it is live by now
        // (docs/adr/0243-taking-over-a-waiting-run.md).
        if (sent !== true && (await isOpen(stores, runId, requestId))) {
          await stores.runs.storeAnswer(runId, requestId, answer)
          await coordination.send(runId, message)
          applied = true
        }
      }
      if (!applied) {
        throw new ApiError('permission_request_not_found', `No open permission request ${requestId} in run ${runId}`)
      }
    },
  }
}

async function isOpen(stores: Stores, runId: string, requestId: string): Promise<boolean> {
  const open = openPermissionRequests(await stores.events.read(runId, 0))
  return open.some((request) => request.request_id === requestId)
}
