import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.js'
import type { RequestIssue } from './request-issues.js'

/**
 * A fault the caller can act on, carrying a catalogue code. Thrown by the domain and turned
 * into application/problem+json by the HTTP layer, or into an `error` frame on a WebSocket.
 */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly status: number
  readonly title: string
  /** Sent as `Retry-After` (seconds) on refusals that clear by themselves (docs/adr/0120-admission-control.md). */
  readonly retryAfterSeconds: number | undefined
  readonly issues: readonly RequestIssue[] | undefined

  constructor(
    readonly code: ErrorCode,
    detail: string,
    options: {
      /** Validation problems, one per field, for clients that map them back to their input. */
      issues?: readonly RequestIssue[]
      retryAfterSeconds?: number
    } = {},
  ) {
    super(detail)
    this.status = ERROR_CATALOGUE[code].status
    this.title = ERROR_CATALOGUE[code].title
    this.retryAfterSeconds = options.retryAfterSeconds
    this.issues = options.issues
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError
}
