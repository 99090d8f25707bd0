import {
  CANCEL_MESSAGE,
  callTimeoutMessage,
  REJECT_MESSAGE,
  runTimeoutMessage,
  SHUTDOWN_MESSAGE,
  siblingErrorMessage,
} from '../messages/tool-error-messages.js'

/** Why a call was stopped before it produced its own result. */
export type AbortReason =
  | { kind: 'cancel' }
  | { kind: 'shutdown' }
  | { kind: 'already-aborted' }
  | { kind: 'sibling'; erroredCall: string }
  | { kind: 'timeout'; timeoutMs: number }
  | { kind: 'run-timeout'; timeoutMs: number }

export function abortReasonText(reason: AbortReason, toolName: string): string {
  switch (reason.kind) {
    case 'cancel':
      return REJECT_MESSAGE
    case 'shutdown':
      return SHUTDOWN_MESSAGE
    case 'already-aborted':
      return CANCEL_MESSAGE
    case 'sibling':
      return siblingErrorMessage(reason.erroredCall)
    case 'timeout':
      return callTimeoutMessage(toolName, reason.timeoutMs)
    case 'run-timeout':
      return runTimeoutMessage(toolName, reason.timeoutMs)
  }
}
