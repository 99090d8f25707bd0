import type { AbortReason } from './abort-reason.js'

/**
 * A bad cap is the caller's bug (config and request options are validated at the edge): say so
 * rather than repair it silently.
 */
export function checkedMaxConcurrency(maxConcurrency: number): number {
  if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
    throw new TypeError(`Expected \`maxConcurrency\` to be an integer from 1 and up, got ${maxConcurrency}`)
  }
  return maxConcurrency
}

/** The whole run's deadline, if it has one: `stopAll` ends every call still going with a timeout result. */
export function armRunDeadline(
  runTimeoutMs: number | undefined,
  stopAll: (reason: AbortReason) => void,
): ReturnType<typeof setTimeout> | undefined {
  if (runTimeoutMs === undefined) return undefined
  const timer = setTimeout(() => stopAll({ kind: 'run-timeout', timeoutMs: runTimeoutMs }), runTimeoutMs)
  timer.unref?.()
  return timer
}
