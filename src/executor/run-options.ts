/** Which errors cancel the other unfinished calls of the same run. */
type CancelOnError = 'bash' | 'any' | 'none'

/** `shutdown`: the service is stopping (graceful shutdown's grace ran out); it aborts like `cancel`. */
export type CancelMode = 'cancel' | 'interrupt' | 'shutdown'

export type RunOptions = {
  /** At most this many calls execute at once (already capped by the operator's limit). */
  maxConcurrency: number
  cancelOnError: CancelOnError
  /** Per-call deadline overriding each tool's default. */
  callTimeoutMs?: number
  /** Deadline for the whole run; calls still going then are aborted with timeout results. */
  runTimeoutMs?: number
  /** Per-run budget for all results together (the "per-message" budget). */
  maxResultChars: number
}
