import { z } from 'zod'
import { ERROR_CODES, type ErrorCode } from '../src/errors/error-catalogue.js'
import { PROBLEM_CONTENT_TYPE } from '../src/errors/problem.js'
import { PROBLEM_EXAMPLES } from './openapi-examples.js'

const ProblemSchema = z
  .object({
    type: z.string().describe('urn:toolexec:error:<code>'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.enum(ERROR_CODES as [ErrorCode, ...ErrorCode[]]).describe('Stable error code; see docs/api.md'),
    errors: z
      .array(
        z.object({
          location: z.enum(['body', 'querystring', 'params', 'headers']),
          pointer: z.string().describe('JSON pointer into that part of the request; empty for the whole part'),
          message: z.string(),
        }),
      )
      .optional()
      .describe('invalid_request from schema validation: one entry per problem'),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details', examples: PROBLEM_EXAMPLES })

const problem = (description: string) => ({
  description,
  content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } },
})

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request',
  401: 'Missing or unknown API key',
  403: 'Forbidden',
  404: 'Not found (or owned by another tenant)',
  409: 'Conflict',
  413: 'Too large',
  426: 'WebSocket upgrade required',
  429: 'Tenant over its share (tenant_over_capacity, too_many_subscribers); see Retry-After',
  503: 'Shutting down, or at capacity (server_at_capacity; see Retry-After)',
}

/** The problem+json responses a route documents, by status. */
export function problemResponses<const S extends number>(...statuses: S[]) {
  return Object.fromEntries(statuses.map((status) => [status, problem(DESCRIPTIONS[status] ?? 'Error')])) as Record<
    S,
    ReturnType<typeof problem>
  >
}

/** A JSON response with its description in the document (a bare schema would say "Default Response"). */
export function jsonResponse<T extends z.ZodType>(description: string, schema: T) {
  return { description, content: { 'application/json': { schema } } }
}
