import { ERROR_CATALOGUE, type ErrorCode } from './error-catalogue.js'

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

  constructor(
    readonly code: ErrorCode,
    detail: string,
    options: { retryAfterSeconds?: number } = {},
  ) {
    super(detail)
    this.status = ERROR_CATALOGUE[code].status
    this.title = ERROR_CATALOGUE[code].title
    this.retryAfterSeconds = options.retryAfterSeconds
  }
}

export function isApiError(value: unknown): value is ApiError {
  return value instanceof ApiError
}
