/** How hard a server connection is retried before its state becomes `failed`. */
export type RetryPolicy = {
  /** Connection attempts (and losses) in a row before giving up. */
  maxAttempts: number
  /** Wait before the second attempt; doubles with each further attempt. */
  initialDelayMs: number
  maxDelayMs: number
  /** A connection that stays up this long clears the count of attempts. */
  stableAfterMs: number
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  stableAfterMs: 30_000,
}

/** Exponential backoff: 0.5 s, 1 s, 2 s, … capped at `maxDelayMs`. */
export function backoffDelay(policy: RetryPolicy, failures: number): number {
  return Math.min(policy.initialDelayMs * 2 ** Math.max(0, failures - 1), policy.maxDelayMs)
}
