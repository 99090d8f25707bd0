// Wire-level pieces of the Managed Agents protocol double: ids, timestamps, the API's error envelope
// (the shape @anthropic-ai/sdk's APIError reads: `error.type`, `error.message`, `error.details.error_code`),
// JSON bodies and server-sent events. docs/adr/0415-managed-agents-protocol-double.md.
import { randomBytes } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'

/** The beta every Managed Agents endpoint requires in `anthropic-beta` (the SDK adds it to each call). */
export const MANAGED_AGENTS_BETA = 'managed-agents-2026-04-01'

/** `prefix_` + 24 random base32-ish characters, like the API's `work_…`, `sesn_…`, `sevt_…` ids. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(15).toString('base64url').replace(/[-_]/g, 'x')}`
}

let lastStamp = 0
/**
 * An RFC 3339 timestamp strictly later than every earlier one, so two heartbeats in one millisecond
 * still carry different `last_heartbeat` values (the optimistic check compares them as strings).
 */
export function timestamp(): string {
  lastStamp = Math.max(Date.now(), lastStamp + 1)
  return new Date(lastStamp).toISOString()
}

/** An API error: status, `error.type`, message, and the optional `details` (with its `error_code`). */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly type: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
  }
}

export const badRequest = (message: string) => new ApiFailure(400, 'invalid_request_error', message)
export const notFound = (message: string) => new ApiFailure(404, 'not_found_error', message)
export const conflict = (message: string) => new ApiFailure(409, 'invalid_request_error', message)

export function sendJson(reply: ServerResponse, status: number, body: unknown, requestId: string): void {
  const text = JSON.stringify(body)
  reply.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    'request-id': requestId,
  })
  reply.end(text)
}

export function sendFailure(reply: ServerResponse, failure: ApiFailure, requestId: string): void {
  const error: Record<string, unknown> = { type: failure.type, message: failure.message }
  if (failure.details !== undefined) error.details = failure.details
  // A 4xx is final: the SDK would otherwise retry 409/429 and muddle what the test sees.
  reply.setHeader('x-should-retry', 'false')
  sendJson(reply, failure.status, { type: 'error', error, request_id: requestId }, requestId)
}

export async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  const text = Buffer.concat(chunks).toString('utf8')
  if (text.trim() === '') return {}
  try {
    return JSON.parse(text)
  } catch {
    throw badRequest('request body is not valid JSON')
  }
}

/** Opens a server-sent-event stream; each event is written with its `type` as the SSE event name. */
export function openEventStream(reply: ServerResponse, requestId: string): (event: { type: string }) => void {
  reply.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'request-id': requestId,
  })
  reply.flushHeaders()
  return (event) => {
    reply.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
  }
}

/** The base64url JSON `secret` a polled work item carries (BetaWorkSecret). */
export function encodeWorkSecret(sessionsToken: string): string {
  return Buffer.from(JSON.stringify({ sessions_token: sessionsToken }), 'utf8').toString('base64url')
}
