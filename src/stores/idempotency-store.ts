/** What an Idempotency-Key is bound to: the run it created and a fingerprint of the request. */
export type IdempotencyEntry = { readonly runId: string; readonly fingerprint: string }

/**
 * Idempotency keys, scoped per tenant. `claim` is atomic: of two concurrent claims of one key
 * exactly one wins (gets `null`); the other gets the winner's entry.
 */
export interface IdempotencyStore {
  claim(tenant: string, key: string, entry: IdempotencyEntry): Promise<IdempotencyEntry | null>
  /** Frees a key whose run never started (the request failed) or has expired. */
  release(tenant: string, key: string, runId: string): Promise<void>
}
