import type { CancelMode } from '../../executor/run-options.js'
import type { LiveRun } from '../live-run.js'
import type { PermissionAnswer } from './permission-broker.js'

/** What one instance asks of the instance executing a run (docs/adr/0111-run-leases.md). */
export type RemoteControl =
  | { kind: 'cancel'; mode: CancelMode }
  | { kind: 'answer'; requestId: string; answer: PermissionAnswer }

/** Applies a message that arrived over the control channel; false when it no longer applies. */
export function applyRemoteControl(run: LiveRun | undefined, message: unknown): boolean {
  if (!run || typeof message !== 'object' || message === null) return false
  const control = message as RemoteControl
  if (control.kind === 'cancel') {
    run.cancel(control.mode)
    return true
  }
  if (control.kind === 'answer') return run.answerPermission(control.requestId, control.answer)
  return false
}
