import { ApiError } from '../errors/api-error.js'
import type { RunCursor } from '../stores/run-store.js'

/** Cursors are opaque to clients: base64url of the last run's creation time and id. */
export const encodeRunCursor = (cursor: RunCursor) =>
  Buffer.from(JSON.stringify([cursor.createdAt, cursor.runId])).toString('base64url')

export function decodeRunCursor(text: string): RunCursor {
  try {
    const [createdAt, runId] = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown[]
    if (typeof createdAt === 'number' && Number.isFinite(createdAt) && typeof runId === 'string')
      return { createdAt, runId }
  } catch {
    // fall through to the refusal
  }
  throw new ApiError(
    'invalid_cursor',
    'The cursor is not one this API gave out: pass `next_cursor` of the previous page as it was',
  )
}
