import type { ApiError } from './api-error.js'
import type { RequestIssue } from './request-issues.js'

/** RFC 9457 problem details, as every error response body carries them. */
export type Problem = {
  type: string
  title: string
  status: number
  detail: string
  code: string
  errors?: readonly RequestIssue[]
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json'

/** `type` is a stable URN per code, so it never points at a host the operator does not run. */
export function toProblem(error: ApiError): Problem {
  return {
    type: `urn:toolexec:error:${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    ...(error.issues === undefined ? {} : { errors: error.issues }),
  }
}
