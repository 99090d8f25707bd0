// `client.beta.sessions.retrieve` and `client.beta.sessions.events.*` (list, stream, send) on the double.
import { page, type Route, type RouteContext, reply } from './route-context.js'
import { openEventStream, readJson } from './wire.js'

const SESSION = '/v1/sessions/([^/]+)'

function sessionFor(context: RouteContext, sessionId: string | undefined) {
  const session = context.state.session(sessionId as string)
  context.state.checkSessionAccess(context.credential, session)
  return session
}

function retrieve(context: RouteContext, [sessionId]: string[]) {
  reply(context, sessionFor(context, sessionId).toWire())
}

function list(context: RouteContext, [sessionId]: string[]) {
  const session = sessionFor(context, sessionId)
  const events = context.url.searchParams.get('order') === 'desc' ? [...session.events].reverse() : session.events
  reply(context, page(context, events))
}

async function send(context: RouteContext, [sessionId]: string[]) {
  const session = sessionFor(context, sessionId)
  const body = (await readJson(context.request)) as { events?: unknown }
  reply(context, { data: session.receive(body.events) })
}

/** New events only, as they are appended; history is what `list` is for (the SDK runner reads both). */
function stream(context: RouteContext, [sessionId]: string[]) {
  const session = sessionFor(context, sessionId)
  const write = openEventStream(context.reply, context.requestId)
  const open = context.streams.get(session.id) ?? new Set()
  context.streams.set(session.id, open.add(context.reply))
  const unsubscribe = session.subscribe(write)
  context.reply.on('close', () => {
    unsubscribe()
    open.delete(context.reply)
  })
}

export const sessionRoutes: readonly Route[] = [
  { method: 'GET', pattern: new RegExp(`^${SESSION}$`), handle: retrieve },
  { method: 'GET', pattern: new RegExp(`^${SESSION}/events$`), handle: list },
  { method: 'POST', pattern: new RegExp(`^${SESSION}/events$`), handle: send },
  { method: 'GET', pattern: new RegExp(`^${SESSION}/events/stream$`), handle: stream },
]
