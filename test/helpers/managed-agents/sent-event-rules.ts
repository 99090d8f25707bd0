// What the double accepts in `POST /v1/sessions/{id}/events`, checked before anything is applied so a
// rejected batch changes nothing. The rules come from the SDK's events.d.ts and the issue threads the
// reference worker's users filed (anthropic-sdk-go#377, #388). docs/adr/0417-managed-agents-double-send-rules.md.
import { ApiFailure, badRequest } from './wire.js'

export type Permission = 'allow' | 'ask' | 'deny'
export type CallStatus = 'open' | 'awaiting_confirmation' | 'confirmed' | 'denied' | 'answered' | 'interrupted'

export interface CallRecord {
  readonly id: string
  readonly name: string
  readonly permission: Permission
  readonly turn: number
  status: CallStatus
  /** The status before an interrupt, when an interrupt ended the call. */
  interruptedWhile?: CallStatus
}

const RESULT_BLOCK_TYPES = new Set(['text', 'image', 'document', 'search_result'])
const SENDABLE_TYPES = new Set([
  'user.message',
  'user.interrupt',
  'user.tool_confirmation',
  'user.custom_tool_result',
  'user.define_outcome',
  'user.tool_result',
  'system.message',
])

type SentEvent = Record<string, unknown> & { type: string }

/** Throws the API's 400 for the first event of `events` the session would refuse; returns them typed. */
export function checkSentEvents(
  events: unknown,
  calls: ReadonlyMap<string, CallRecord>,
  terminated: boolean,
): SentEvent[] {
  if (!Array.isArray(events) || events.length === 0) throw badRequest('events: must be a non-empty array')
  if (terminated) throw badRequest('the session is terminated and accepts no events')
  const seenResults = new Set<string>()
  return events.map((event, index) => {
    const where = `events.${index}`
    if (typeof event !== 'object' || event === null || typeof (event as SentEvent).type !== 'string') {
      throw badRequest(`${where}: must be an object with a string type`)
    }
    const sent = event as SentEvent
    if (!SENDABLE_TYPES.has(sent.type)) throw badRequest(`${where}.type: ${sent.type} cannot be sent by a client`)
    if (sent.type === 'user.tool_result') {
      checkToolResult(sent, where, calls, seenResults)
    } else if (sent.type === 'user.tool_confirmation') {
      checkConfirmation(sent, where, calls)
    }
    return sent
  })
}

function callFor(calls: ReadonlyMap<string, CallRecord>, id: unknown, where: string): CallRecord {
  if (typeof id !== 'string') throw badRequest(`${where}.tool_use_id: required`)
  const call = calls.get(id)
  if (call === undefined) throw badRequest(`${where}.tool_use_id: ${id} is not an agent.tool_use event of this session`)
  return call
}

function checkToolResult(sent: SentEvent, where: string, calls: ReadonlyMap<string, CallRecord>, seen: Set<string>) {
  const call = callFor(calls, sent.tool_use_id, where)
  if (seen.has(call.id) || call.status === 'answered') {
    throw badRequest(`${where}.tool_use_id: ${call.id} already has a user.tool_result`)
  }
  seen.add(call.id)
  if (call.status === 'denied') throw badRequest(`${where}.tool_use_id: ${call.id} was denied and takes no result`)
  if (call.status === 'awaiting_confirmation') {
    throw badRequest(
      `${where}.tool_use_id: ${call.id} has evaluated_permission ask and no user.tool_confirmation yet; ` +
        'a result can only follow an allow confirmation',
    )
  }
  const content = sent.content
  if (!Array.isArray(content) || content.length === 0) {
    throw badRequest(`${where}.content: a tool result needs at least one content block`)
  }
  content.forEach((block: unknown, blockIndex) => {
    const at = `${where}.content.${blockIndex}`
    const type = (block as { type?: unknown } | null)?.type
    if (typeof type !== 'string' || !RESULT_BLOCK_TYPES.has(type)) {
      throw badRequest(`${at}.type: must be one of text, image, document, search_result`)
    }
    const text = (block as { text?: unknown }).text
    if (type === 'text' && (typeof text !== 'string' || text.trim() === '')) {
      throw badRequest(`${at}.text: text content blocks must contain non-whitespace text`)
    }
    if (type === 'image') checkImageSource((block as { source?: unknown }).source, `${at}.source`)
  })
  if (sent.is_error !== undefined && sent.is_error !== null && typeof sent.is_error !== 'boolean') {
    throw badRequest(`${where}.is_error: must be a boolean`)
  }
}

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp'])

/** BetaManagedAgentsImageBlock's source: base64 (a known image type and data), url, or file. */
function checkImageSource(source: unknown, at: string) {
  const value = (source ?? {}) as Record<string, unknown>
  if (value.type === 'base64') {
    if (typeof value.media_type !== 'string' || !IMAGE_TYPES.has(value.media_type)) {
      throw badRequest(`${at}.media_type: must be one of ${[...IMAGE_TYPES].join(', ')}`)
    }
    if (typeof value.data !== 'string' || value.data === '') throw badRequest(`${at}.data: base64 image data required`)
  } else if (value.type === 'url') {
    if (typeof value.url !== 'string' || value.url === '') throw badRequest(`${at}.url: required`)
  } else if (value.type === 'file') {
    if (typeof value.file_id !== 'string' || value.file_id === '') throw badRequest(`${at}.file_id: required`)
  } else {
    throw badRequest(`${at}.type: must be base64, url or file`)
  }
}

function checkConfirmation(sent: SentEvent, where: string, calls: ReadonlyMap<string, CallRecord>) {
  const call = callFor(calls, sent.tool_use_id, where)
  if (sent.result !== 'allow' && sent.result !== 'deny') throw badRequest(`${where}.result: must be allow or deny`)
  if (sent.deny_message != null && sent.result !== 'deny') {
    throw badRequest(`${where}.deny_message: only allowed when result is deny`)
  }
  if (call.status !== 'awaiting_confirmation') {
    throw new ApiFailure(
      400,
      'invalid_request_error',
      `${where}.tool_use_id: ${call.id} is not awaiting confirmation (it is ${call.status})`,
    )
  }
}
