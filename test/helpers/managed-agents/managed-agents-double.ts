// The protocol double itself: a real HTTP server on a free port that answers the Managed Agents calls the
// SDK makes (work queue and session events), checks the beta header and the credentials, and hands tests
// the controls they need (open a scripted session, lapse a lease, stop an item, lose a heartbeat answer,
// cut event streams). docs/adr/0415-managed-agents-protocol-double.md.
import { createServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { DoubleState } from './double-state.js'
import type { Route, RouteContext } from './route-context.js'
import type { ScriptedCall, ScriptedSession, SessionScript } from './scripted-session.js'
import { sessionRoutes } from './session-routes.js'
import { ApiFailure, badRequest, MANAGED_AGENTS_BETA, newId, notFound, sendFailure } from './wire.js'
import type { WorkItem } from './work-queue.js'
import { workRoutes } from './work-routes.js'

export interface ManagedAgentsDoubleOptions {
  /** TTL a heartbeat grants when the worker asks for none. Default 60 s; tests of lapses use a few seconds. */
  leaseTtlSeconds?: number
  /** Whether polled items carry a `secret` with a per-item sessions token. Default true. */
  issueSecrets?: boolean
  /**
   * Whether a lease with no heartbeat for one TTL lapses by itself (the item is redelivered). Default true.
   * False leaves lapses to `expireLease`, so a slow host can never lapse a lease a test did not mean to.
   */
  leasesLapse?: boolean
}

export interface RequestRecord {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly credential: string
}

export interface ManagedAgentsDouble {
  /** Pass as `baseURL` to `new Anthropic({ baseURL })`. */
  readonly baseURL: string
  /** The Claude API key the double accepts (as `x-api-key`), for the user's side of a session. */
  readonly apiKey: string
  /** Every request, in the order they ended; status 0 for a dropped answer or a cut stream. */
  readonly requests: readonly RequestRecord[]
  /** Resolves with the first request (already answered or still to come) that `matches`. */
  waitForRequest(matches: (request: RequestRecord) => boolean): Promise<RequestRecord>
  /** `METHOD path` of requests no route of the double knows (a worker calling something not modelled). */
  readonly unhandled: readonly string[]
  createEnvironment(): { id: string; key: string }
  /** Creates a session running `script` and queues its work item. */
  openSession(environmentId: string, script: SessionScript): ScriptedSession
  /**
   * A follow-up user message to a session that ended its turn: `turns` run next. Like the hosted service
   * (work is queued "when long-dormant sessions receive new messages"), a new work item is queued when
   * the session's last one is stopped; otherwise the worker still holding it sees the new events.
   */
  continueSession(sessionId: string, turns: ScriptedCall[][], end?: 'terminate' | 'end_turn'): void
  enqueueHealthcheck(environmentId: string): WorkItem
  work(workId: string): WorkItem
  /** The newest work item of a session. */
  workFor(sessionId: string): WorkItem
  /** Resolves when the work item satisfies `matches` (checked now and on every change). */
  waitForWork(workId: string, matches: (item: WorkItem) => boolean): Promise<WorkItem>
  /** Lapses the item's lease now: it goes back to the queue and the next poll redelivers it. */
  expireLease(workId: string): void
  /** A graceful stop, as the API's user would request: heartbeats then answer `stopping`, not extended. */
  requestStop(workId: string): void
  /** The next `count` heartbeats are recorded but their answers are dropped (connection closed). */
  loseHeartbeatResponses(workId: string, count?: number): void
  /** Closes every open event stream of the session; returns how many were open. */
  dropStreams(sessionId: string): number
  close(): Promise<void>
}

export async function startManagedAgentsDouble(options: ManagedAgentsDoubleOptions = {}): Promise<ManagedAgentsDouble> {
  const state = new DoubleState({
    leaseTtlSeconds: options.leaseTtlSeconds ?? 60,
    issueSecrets: options.issueSecrets ?? true,
    leasesLapse: options.leasesLapse ?? true,
  })
  const streams = new Map<string, Set<ServerResponse>>()
  const requests: RequestRecord[] = []
  const requestWaiters = new Set<(request: RequestRecord) => void>()
  const unhandled: string[] = []
  const routes: readonly Route[] = [...workRoutes, ...sessionRoutes]

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://double')
    const requestId = newId('req')
    let credential = 'none'
    response.on('close', () => {
      // 0: the double dropped the connection instead of answering (a lost response).
      const status = response.writableFinished ? response.statusCode : 0
      const record = { method: request.method ?? '', path: url.pathname, status, credential }
      requests.push(record)
      for (const waiter of [...requestWaiters]) waiter(record)
    })
    const run = async () => {
      const match = findRoute(routes, request.method ?? '', url.pathname)
      if (match === undefined) {
        unhandled.push(`${request.method} ${url.pathname}`)
        throw notFound(`the protocol double does not implement ${request.method} ${url.pathname}`)
      }
      const betas = String(request.headers['anthropic-beta'] ?? '')
        .split(',')
        .map((beta) => beta.trim())
      if (!betas.includes(MANAGED_AGENTS_BETA)) {
        throw badRequest(`anthropic-beta: this endpoint requires the ${MANAGED_AGENTS_BETA} beta`)
      }
      const identified = state.identify(request.headers)
      credential = identified.kind
      const context: RouteContext = { request, reply: response, url, credential: identified, state, requestId, streams }
      await match.route.handle(context, match.params)
    }
    run().catch((error: unknown) => {
      if (response.headersSent || response.destroyed) return
      const failure =
        error instanceof ApiFailure ? error : new ApiFailure(500, 'api_error', `double failed: ${String(error)}`)
      sendFailure(response, failure, requestId)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  const item = (workId: string) => {
    const found = state.queue.items.get(workId)
    if (found === undefined) throw new Error(`no work item ${workId} in this double`)
    return found
  }

  return {
    baseURL: `http://127.0.0.1:${port}`,
    apiKey: state.apiKey,
    requests,
    unhandled,
    waitForRequest(matches) {
      const found = requests.find(matches)
      if (found !== undefined) return Promise.resolve(found)
      return new Promise((resolve) => {
        const waiter = (record: RequestRecord) => {
          if (!matches(record)) return
          requestWaiters.delete(waiter)
          resolve(record)
        }
        requestWaiters.add(waiter)
      })
    },
    createEnvironment: () => state.createEnvironment(),
    openSession: (environmentId, script) => state.openSession(environmentId, script),
    continueSession: (sessionId, turns, end) => state.continueSession(sessionId, turns, end),
    enqueueHealthcheck: (environmentId) => state.queue.enqueue(environmentId, { type: 'healthcheck', id: newId('hc') }),
    work: item,
    workFor(sessionId) {
      const items = [...state.queue.items.values()].filter((candidate) => candidate.data.id === sessionId)
      const newest = items.at(-1)
      if (newest === undefined) throw new Error(`no work item for session ${sessionId}`)
      return newest
    },
    waitForWork(workId, matches) {
      const current = item(workId)
      if (matches(current)) return Promise.resolve(current)
      return new Promise((resolve) => {
        const onChange = (changed: WorkItem) => {
          if (changed.id !== workId || !matches(changed)) return
          state.queue.off('change', onChange)
          resolve(changed)
        }
        state.queue.on('change', onChange)
      })
    },
    expireLease: (workId) => state.queue.requeue(item(workId)),
    requestStop: (workId) => {
      const found = item(workId)
      state.queue.stop(found.environmentId, workId, false)
    },
    loseHeartbeatResponses: (workId, count = 1) => {
      item(workId).heartbeatResponsesToLose += count
    },
    dropStreams(sessionId) {
      const open = [...(streams.get(sessionId) ?? [])]
      for (const response of open) response.destroy()
      return open.length
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const open of streams.values()) for (const response of open) response.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

function findRoute(routes: readonly Route[], method: string, path: string) {
  for (const route of routes) {
    if (route.method !== method) continue
    const match = route.pattern.exec(path)
    if (match !== null) return { route, params: match.slice(1).map(decodeURIComponent) }
  }
  return undefined
}
