/**
 * Every text the engine itself puts in a tool_result. They are part of the API contract
 * (docs/design.md §4, §6): models and clients match on them, so change them only with the design doc.
 */

export const wrapToolUseError = (message: string): string => `<tool_use_error>${message}</tool_use_error>`

/** `meant`: a tool of the pool whose name differs only in case, named so the model can correct itself. */
export const noSuchToolMessage = (name: string, meant?: string): string =>
  wrapToolUseError(
    meant === undefined
      ? `Error: No such tool available: ${name}`
      : `Error: No such tool available: ${name}. Tool names are case-sensitive: did you mean ${meant}?`,
  )

export const pipelineFaultMessage = (name: string, message: string): string =>
  wrapToolUseError(`Error calling tool (${name}): ${message}`)

/** Cancel (and interrupt of calls that had not finished): the call was rejected. */
export const REJECT_MESSAGE =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed."

/** The run was already aborted when this call was about to start (pipeline step 2). */
/**
 * A call stopped because the service shut down (docs/adr/0288): not the user's decision, so not
 * the user's texts; a call that had started may have had partial effects.
 */
export const SHUTDOWN_MESSAGE = wrapToolUseError(
  'The tool service shut down before this call finished. If it had started, it may have had partial effects; check before running it again.',
)

export const CANCEL_MESSAGE =
  "The user doesn't want to take this action right now. STOP what you are doing and wait for the user to tell you how to proceed."

export const siblingErrorMessage = (erroredCall: string): string =>
  wrapToolUseError(`Cancelled: parallel tool call ${erroredCall} errored`)

export const callTimeoutMessage = (name: string, timeoutMs: number): string =>
  wrapToolUseError(
    `Timed out: ${name} did not finish within ${timeoutMs} ms and was aborted. It may have had partial effects: check the state before retrying.`,
  )

export const runTimeoutMessage = (name: string, timeoutMs: number): string =>
  wrapToolUseError(
    `Timed out: the run's deadline of ${timeoutMs} ms passed before ${name} finished, so it was aborted. It may have had partial effects: check the state before retrying.`,
  )

export const hookBlockedMessage = (reason: string): string => `Blocked by PreToolUse hook: ${reason}`

/** The call already ran; a PostToolUse hook that blocks can only tell the model why. */
export const postHookBlockedMessage = (reason: string): string => `PostToolUse hook feedback: ${reason}`

export const emptyOutputMessage = (name: string): string => `(${name} completed with no output)`

export const NO_OUTPUT_FALLBACK = 'Command failed with no output'

/** The instance executing the call died (docs/adr/0112-what-a-lost-run-says.md). */
export const lostExecutorMessage = (name: string): string =>
  wrapToolUseError(
    `The executor stopped before ${name} finished: the toolexec instance running it was lost. It may have had partial effects: check the state before retrying.`,
  )
