import { z } from 'zod'
import type { RunOptions } from '../executor/run-options.js'
import type { RunMode } from '../stores/run-store.js'

const positiveInteger = z.number().int().min(1)

/** The per-request knobs of docs/design.md §10, as the API names them (POST /v1/runs and `run.start`). */
export const RunRequestOptionsShape = {
  max_concurrency: positiveInteger.optional().describe('Lower the operator cap on calls executing at once'),
  timeout_ms: positiveInteger.optional().describe('Deadline for the whole run'),
  call_timeout_ms: positiveInteger.optional().describe("Per-call deadline overriding each tool's default"),
  cancel_on_error: z
    .enum(['bash', 'any', 'none'])
    .optional()
    .describe('Which errors cancel the unfinished sibling calls (default bash)'),
  max_result_chars: positiveInteger
    .optional()
    .describe('Lower the budget for all results of the run together (TOOLEXEC_MAX_RESULT_CHARS is the ceiling)'),
  permission_timeout_ms: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('How long a permission ask waits for an answer; wait:true runs deny at once without it'),
}
export type RunRequestOptions = z.infer<z.ZodObject<typeof RunRequestOptionsShape>>

export type OperatorLimits = { maxToolUseConcurrency: number; maxResultChars: number; permissionTimeoutMs: number }

/** The executor's options: a request may lower the operator's concurrency cap and result budget, never raise them. */
export function runOptionsOf(request: RunRequestOptions, limits: OperatorLimits): RunOptions {
  return {
    maxConcurrency: Math.min(request.max_concurrency ?? limits.maxToolUseConcurrency, limits.maxToolUseConcurrency),
    cancelOnError: request.cancel_on_error ?? 'bash',
    // Like the concurrency cap, the operator's budget is a ceiling (docs/adr/0098-result-budget-is-a-ceiling.md).
    maxResultChars: Math.min(request.max_result_chars ?? limits.maxResultChars, limits.maxResultChars),
    ...(request.call_timeout_ms === undefined ? {} : { callTimeoutMs: request.call_timeout_ms }),
    ...(request.timeout_ms === undefined ? {} : { runTimeoutMs: request.timeout_ms }),
  }
}

/** `wait: true` runs have nobody to ask unless the request says how long to wait (docs/design.md §7). */
export function permissionTimeoutOf(mode: RunMode, request: RunRequestOptions, limits: OperatorLimits) {
  if (mode === 'wait') return request.permission_timeout_ms
  return request.permission_timeout_ms ?? limits.permissionTimeoutMs
}
