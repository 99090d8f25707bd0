import type { CancelOnError, RunOptions } from '../executor/run-options.js'
import type { RunMode } from '../stores/run-store.js'

/** The per-request knobs of SPEC §10, as the API names them. */
export type RunRequestOptions = {
  max_concurrency?: number
  timeout_ms?: number
  call_timeout_ms?: number
  cancel_on_error?: CancelOnError
  max_result_chars?: number
  permission_timeout_ms?: number
}

export type OperatorLimits = { maxToolUseConcurrency: number; maxResultChars: number; permissionTimeoutMs: number }

/** The executor's options: a request may lower the operator's concurrency cap, never raise it. */
export function runOptionsOf(request: RunRequestOptions, limits: OperatorLimits): RunOptions {
  return {
    maxConcurrency: Math.min(request.max_concurrency ?? limits.maxToolUseConcurrency, limits.maxToolUseConcurrency),
    cancelOnError: request.cancel_on_error ?? 'bash',
    maxResultChars: request.max_result_chars ?? limits.maxResultChars,
    ...(request.call_timeout_ms === undefined ? {} : { callTimeoutMs: request.call_timeout_ms }),
    ...(request.timeout_ms === undefined ? {} : { runTimeoutMs: request.timeout_ms }),
  }
}

/** `wait: true` runs have nobody to ask unless the request says how long to wait (SPEC §7). */
export function permissionTimeoutOf(mode: RunMode, request: RunRequestOptions, limits: OperatorLimits) {
  if (mode === 'wait') return request.permission_timeout_ms
  return request.permission_timeout_ms ?? limits.permissionTimeoutMs
}
