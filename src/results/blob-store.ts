import type { Writable } from 'node:stream'

/** A stored blob: `blobId` is its file name inside the tenant's blob directory. */
export type BlobRef = { blobId: string; path: string; size: number }

/** A blob as a run reports it on the wire, beside the result that points at it. */
export type BlobInfo = { tool_use_id: string; blob_id: string; size: number }

export type BlobStream = {
  blobId: string
  path: string
  stream: Writable
  /** Resolves with the blob once the stream has finished and the file is closed. */
  finished: Promise<BlobRef>
}

/**
 * Blob storage with one namespace per tenant. Writes are exclusive: writing an id that exists
 * reuses the file already there, so a retried run never rewrites what a model was shown.
 */
export interface BlobStore {
  write(tenant: string, blobId: string, content: string): Promise<BlobRef>
  openWriteStream(tenant: string, blobId: string): Promise<BlobStream>
  /** The tenant's blob directory (created on demand); Read treats it as a read-only working dir. */
  directory(tenant: string): string
  /** Null when absent or when `blobId` is not a plain file name. Never crosses tenants. */
  stat(tenant: string, blobId: string): Promise<BlobRef | null>
  /** Deletes blobs older than the TTL; returns how many were removed. */
  sweep(now?: number): Promise<number>
}
