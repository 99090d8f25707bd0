import { abortCall, type TrackedCall } from './tracked-call.js'

/**
 * The call's own deadline. Outside armCallDeadline: a closure there would make that function
 * allocate its scope on every call, calls without a deadline too (docs/adr/0433).
 */
function startCallTimer(call: TrackedCall, timeoutMs: number): void {
  call.timer = setTimeout(() => abortCall(call, { kind: 'timeout', timeoutMs }), timeoutMs)
  call.timer.unref?.()
}

/**
 * Arms a running call's deadline: the run's per-call timeout (`callTimeoutMs`), else the tool's
 * default, else none. Armed again when an answer a person gave lets the call go on (docs/adr/0241).
 */
export function armCallDeadline(call: TrackedCall, callTimeoutMs: number | undefined): void {
  const timeoutMs = callTimeoutMs ?? call.tool?.defaultTimeoutMs
  if (timeoutMs !== undefined) startCallTimer(call, timeoutMs)
}

/**
 * A call waiting for a person's answer holds no deadline: it may take hours, so the deadline
 * counts again from when the answer lets it go on (docs/adr/0241-asks-wait-without-holding-a-slot.md).
 * The run's own deadline still counts.
 */
export function pauseCallDeadline(call: TrackedCall, waiting: boolean, callTimeoutMs: number | undefined): void {
  clearTimeout(call.timer)
  if (!waiting) armCallDeadline(call, callTimeoutMs)
}
