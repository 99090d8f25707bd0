/**
 * One stored secret as the backends keep it: the value only sealed (seal-secret.ts), with when
 * and by whom it was written. The API shows everything here but `sealed`.
 */
export type SealedSecret = {
  name: string
  sealed: string
  created_at: string
  updated_at: string
  /** The name of the key that wrote it last (never the key), and its tenant. */
  updated_by: string
}

/**
 * Where sealed secrets live: one set per deployment (docs/adr/0331-secrets-belong-to-the-deployment.md),
 * in a file under the data directory or in one Redis hash.
 */
export interface SecretStore {
  get(name: string): Promise<SealedSecret | undefined>
  /** Writes the record whole; `created_at` is the caller's to keep. */
  put(record: SealedSecret): Promise<void>
  /** Whether there was a secret of that name. */
  delete(name: string): Promise<boolean>
  /** Every record, by name. */
  list(): Promise<SealedSecret[]>
  /**
   * Told the name of each secret written or deleted by any instance sharing the store (its own
   * writes included), where the backend can tell; absent, only this instance's writes are known.
   */
  onChange?(listener: (name: string) => void): () => void
  /**
   * Takes a lock named `name` shared by every instance on the store, expiring after `ttlMs`;
   * undefined when held elsewhere. Absent, locks are per process (docs/adr/0421-one-refresh-at-a-time.md).
   */
  tryLock?(name: string, ttlMs: number): Promise<(() => Promise<void>) | undefined>
  close(): Promise<void>
}
