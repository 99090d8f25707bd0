import { ApiError } from '../../errors/api-error.js'
import type { CancelMode } from '../../executor/run-options.js'
import type { RunCoordination } from '../../stores/run-coordination.js'
import type { RunRecord } from '../../stores/run-store.js'
import type { LiveRun } from '../live-run.js'
import type { PermissionAnswer } from './permission-broker.js'
import type { RemoteControl } from './remote-control.js'

/**
 * Cancels and permission answers for a run the caller has read (its tenant checked): applied here
 * when the run executes here, sent to the instance executing it otherwise
 * (docs/adr/0179-one-control-channel-per-instance.md).
 */
export function createRunControl(live: ReadonlyMap<string, LiveRun>, coordination: RunCoordination | undefined) {
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
      const applied = run
        ? run.answerPermission(requestId, answer)
        : record.status === 'running' && (await sendRemote(runId, { kind: 'answer', requestId, answer }))
      if (!applied) {
        throw new ApiError('permission_request_not_found', `No open permission request ${requestId} in run ${runId}`)
      }
    },
  }
}
