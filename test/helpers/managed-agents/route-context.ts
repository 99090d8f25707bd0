// What a route of the double receives: the request, its parsed URL, who sent it, and the shared state.
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Credential, DoubleState } from './double-state.js'
import { sendJson } from './wire.js'

export interface RouteContext {
  readonly request: IncomingMessage
  readonly reply: ServerResponse
  readonly url: URL
  readonly credential: Credential
  readonly state: DoubleState
  readonly requestId: string
  /** Open event streams per session id, so a test can cut them. */
  readonly streams: Map<string, Set<ServerResponse>>
}

export type Route = {
  readonly method: 'GET' | 'POST'
  readonly pattern: RegExp
  readonly handle: (context: RouteContext, params: string[]) => Promise<void> | void
}

export function reply(context: RouteContext, body: unknown, status = 200): void {
  sendJson(context.reply, status, body, context.requestId)
}

/** One page of `items` for the SDK's PageCursor: `data` and an opaque `next_page` (here an offset). */
export function page<T>(context: RouteContext, items: readonly T[]): { data: T[]; next_page: string | null } {
  const limit = Number(context.url.searchParams.get('limit') ?? 20)
  const offset = Number(context.url.searchParams.get('page') ?? 0)
  const data = items.slice(offset, offset + limit)
  return { data, next_page: offset + limit < items.length ? String(offset + limit) : null }
}
