/**
 * Names that may become path segments under the blob root. Both are checked before any path is
 * built, so a hostile tenant or blob id can never climb out of its own directory.
 */

const TENANT_PATTERN = /^[A-Za-z0-9_-]{1,64}$/
// A leading dot is refused too: hidden files are never blobs.
const BLOB_ID_PATTERN = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/
const BLOB_ID_EXTENSION = /\.(txt|json)$/

export function isValidTenant(tenant: string): boolean {
  return TENANT_PATTERN.test(tenant)
}

export function assertValidTenant(tenant: string): void {
  if (!isValidTenant(tenant)) throw new Error(`Invalid tenant name: expected [A-Za-z0-9_-]{1,64}, got ${tenant}`)
}

/** A plain file name ending in `.txt` or `.json`: no separators, no `..`. */
export function isValidBlobId(blobId: string): boolean {
  return BLOB_ID_PATTERN.test(blobId) && !blobId.includes('..') && BLOB_ID_EXTENSION.test(blobId)
}

export function assertValidBlobId(blobId: string): void {
  if (!isValidBlobId(blobId)) {
    throw new Error(`Invalid blob id: expected a plain file name ending in .txt or .json, got ${blobId}`)
  }
}
