// The record of every `user.tool_result` a worker sent to a scripted session, accepted or refused: what
// tests read to assert "answered exactly once" and to see the double's 400 messages.
import type { CallRecord } from './sent-event-rules.js'
import type { ApiFailure } from './wire.js'

/** One `user.tool_result` a worker sent, accepted or refused. */
export interface ResultAttempt {
  readonly toolUseId: string
  readonly accepted: boolean
  /** 200, or the status the double answered (400). */
  readonly status: number
  readonly message?: string
  readonly content: unknown
  readonly isError: boolean
  /** Order among every attempt of the session. */
  readonly sequence: number
  /** The call's status when the result came (for example `interrupted`). */
  readonly callStatus: string
}

export function acceptedAttempt(event: Record<string, unknown>, call: CallRecord, sequence: number): ResultAttempt {
  return {
    toolUseId: call.id,
    accepted: true,
    status: 200,
    content: event.content,
    isError: event.is_error === true,
    sequence,
    callStatus: call.status,
  }
}

/** The results in a refused batch `sent`, each with the failure that refused the batch. */
export function refusedAttempts(
  sent: unknown,
  failure: ApiFailure,
  calls: ReadonlyMap<string, CallRecord>,
  firstSequence: number,
): ResultAttempt[] {
  if (!Array.isArray(sent)) return []
  return sent
    .filter((event) => event?.type === 'user.tool_result' && typeof event.tool_use_id === 'string')
    .map((event, index) => ({
      toolUseId: event.tool_use_id,
      accepted: false,
      status: failure.status,
      message: failure.message,
      content: event.content,
      isError: event.is_error === true,
      sequence: firstSequence + index,
      callStatus: calls.get(event.tool_use_id)?.status ?? 'unknown',
    }))
}
