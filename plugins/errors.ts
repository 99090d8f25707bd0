import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod'
import type { ZodType } from 'zod'
import { ApiError, isApiError } from '../src/errors/api-error.js'
import { PROBLEM_CONTENT_TYPE, toProblem } from '../src/errors/problem.js'
import { describeIssues, requestIssues, type ValidationFailure } from '../src/errors/request-issues.js'
import { knownFieldsAt } from '../src/errors/schema-keys.js'

/**
 * 503s that are answers, not faults: a full instance or a drain refuses by design
 * (docs/adr/0120-admission-control.md) and counts it in the metrics. Logged like a 4xx: at
 * error level with the stack, a burst of thousands of refusals spent the event loop on
 * formatting stack traces (docs/adr/0161-refusals-are-not-logged-as-faults.md).
 */
const REFUSALS: ReadonlySet<string> = new Set(['server_at_capacity', 'shutting_down'])

/** Every error leaves as application/problem+json with a catalogue code; nothing else escapes. */
export const errorsPlugin = fp(
  async (app) => {
    const { maxBodyBytes } = app.config
    app.setErrorHandler((error: FastifyError, request, reply) => {
      const apiError = toApiError(error, maxBodyBytes, request)
      if (apiError.status >= 500 && !REFUSALS.has(apiError.code)) request.log.error({ err: error }, 'request failed')
      else request.log.info({ code: apiError.code }, apiError.message)
      return sendProblem(reply, apiError)
    })
    app.setNotFoundHandler((request, reply) =>
      sendProblem(reply, new ApiError('route_not_found', `No route ${request.method} ${request.url.split('?')[0]}`)),
    )
  },
  { name: 'errors', dependencies: ['config'] },
)

/**
 * Errors fastify's router raises before any hook (a malformed URL, a path parameter over
 * `maxParamLength`): problem+json like every other answer (Fastify's `frameworkErrors` option).
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return sendProblem(
      reply,
      new ApiError('path_parameter_too_long', `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`),
    )
  }
  return sendProblem(reply, new ApiError('invalid_request', 'The URL is malformed'))
}

/**
 * The longest path parameter the router takes: every id the service hands out fits (blob ids are
 * at most 256 characters; fastify's default, 100, made a blob URL of a long tool_use id a 414).
 */
export const MAX_PARAM_LENGTH = 512

function sendProblem(reply: FastifyReply, error: ApiError) {
  if (error.status === 401) reply.header('www-authenticate', 'Bearer')
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds))
  // Pre-serialised: a route's response schema for this status must not reshape the problem.
  return reply
    .code(error.status)
    .type(PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(toProblem(error)))
}

function toApiError(error: FastifyError, maxBodyBytes: number, request: FastifyRequest): ApiError {
  if (isApiError(error)) return error
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = error.validationContext ?? 'request'
    // fastify names the part `querystring` and keeps it as `request.query`.
    const part = where === 'querystring' ? 'query' : where
    const data = (request as unknown as Record<string, unknown>)[part]
    const schema = (request.routeOptions.schema as Record<string, ZodType | undefined> | undefined)?.[where]
    const issues = requestIssues(where, error.validation as ValidationFailure[], data, (path) =>
      knownFieldsAt(schema, path),
    )
    return new ApiError('invalid_request', describeIssues(issues), { issues })
  }
  if (isResponseSerializationError(error))
    return new ApiError('internal_error', 'The response did not match its schema')
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(
        'body_too_large',
        `Request bodies are limited to ${maxBodyBytes} bytes (TOOLEXEC_MAX_BODY_BYTES)`,
      )
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the body as application/json')
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_request', error.message)
  }
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError('invalid_request', error.message)
  }
  return new ApiError('internal_error', 'Something went wrong on our side; the error is logged')
}
