// `client.beta.environments.work.*` on the double: poll, ack, heartbeat, stop, list, stats, retrieve.
import { page, type Route, type RouteContext, reply } from './route-context.js'
import { badRequest, readJson } from './wire.js'
import { checkPollQuery } from './work-queue.js'

const WORK = '/v1/environments/([^/]+)/work'

async function poll(context: RouteContext, [environmentId]: string[]) {
  context.state.checkEnvironmentAccess(context.credential, environmentId as string, false)
  const { block, reclaim } = checkPollQuery(
    context.url.searchParams.get('block_ms'),
    context.url.searchParams.get('reclaim_older_than_ms'),
  )
  const workerId = context.request.headers['anthropic-worker-id']
  const item = await context.state.queue.poll(environmentId as string, block, reclaim, workerId as string | undefined)
  // No work: 200 with a JSON `null` body (the SDK's poll is typed `BetaSelfHostedWork | null`). ADR 0416.
  reply(context, item === null ? null : context.state.queue.toWire(item, true))
}

function ack(context: RouteContext, [environmentId, workId]: string[]) {
  context.state.checkEnvironmentAccess(context.credential, environmentId as string, false)
  reply(context, context.state.queue.toWire(context.state.queue.ack(environmentId as string, workId as string), false))
}

function heartbeat(context: RouteContext, [environmentId, workId]: string[]) {
  context.state.checkEnvironmentAccess(context.credential, environmentId as string, false)
  const expected = context.url.searchParams.get('expected_last_heartbeat') ?? undefined
  const desired = context.url.searchParams.get('desired_ttl_seconds')
  const ttl = desired === null ? undefined : Number(desired)
  if (ttl !== undefined && !(Number.isInteger(ttl) && ttl > 0)) {
    throw badRequest('desired_ttl_seconds: must be a positive integer')
  }
  const { item, extended } = context.state.queue.heartbeat(environmentId as string, workId as string, expected, ttl)
  if (extended && item.heartbeatResponsesToLose > 0) {
    // The heartbeat is recorded but its answer never arrives: the worker's next beat carries a stale value.
    item.heartbeatResponsesToLose -= 1
    context.request.socket.destroy()
    return
  }
  reply(context, {
    type: 'work_heartbeat',
    last_heartbeat: item.lastHeartbeat ?? '',
    lease_extended: extended,
    state: item.state,
    ttl_seconds: item.ttlSeconds,
  })
}

async function stop(context: RouteContext, [environmentId, workId]: string[]) {
  context.state.checkEnvironmentAccess(context.credential, environmentId as string, true)
  const body = (await readJson(context.request)) as { force?: unknown }
  if (body.force !== undefined && typeof body.force !== 'boolean') throw badRequest('force: must be a boolean')
  const item = context.state.queue.stop(environmentId as string, workId as string, body.force === true)
  reply(context, context.state.queue.toWire(item, false))
}

function list(context: RouteContext, [environmentId]: string[]) {
  context.state.checkEnvironmentAccess(context.credential, environmentId as string, false)
  const items = context.state.queue.list(environmentId as string).map((item) => context.state.queue.toWire(item, false))
  reply(context, page(context, items))
}

function stats(context: RouteContext, [environmentId]: string[]) {
  context.state.checkEnvironmentAccess(context.credential, environmentId as string, true)
  reply(context, context.state.queue.stats(environmentId as string))
}

function retrieve(context: RouteContext, [environmentId, workId]: string[]) {
  context.state.checkEnvironmentAccess(context.credential, environmentId as string, true)
  reply(context, context.state.queue.toWire(context.state.queue.get(environmentId as string, workId as string), false))
}

export const workRoutes: readonly Route[] = [
  { method: 'GET', pattern: new RegExp(`^${WORK}/poll$`), handle: poll },
  { method: 'GET', pattern: new RegExp(`^${WORK}/stats$`), handle: stats },
  { method: 'GET', pattern: new RegExp(`^${WORK}$`), handle: list },
  { method: 'GET', pattern: new RegExp(`^${WORK}/([^/]+)$`), handle: retrieve },
  { method: 'POST', pattern: new RegExp(`^${WORK}/([^/]+)/ack$`), handle: ack },
  { method: 'POST', pattern: new RegExp(`^${WORK}/([^/]+)/heartbeat$`), handle: heartbeat },
  { method: 'POST', pattern: new RegExp(`^${WORK}/([^/]+)/stop$`), handle: stop },
]
