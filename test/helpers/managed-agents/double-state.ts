// What one protocol double holds: environments and their keys, the work queue, the scripted sessions,
// and which bearer token may act on what. Shared by the work and session routes.
import { type ScriptedCall, ScriptedSession, type SessionScript } from './scripted-session.js'
import { ApiFailure, newId, notFound } from './wire.js'
import { WorkQueue, type WorkQueueOptions } from './work-queue.js'

export type Credential =
  | { kind: 'api_key' }
  | { kind: 'environment_key'; environmentId: string }
  | { kind: 'sessions_token'; workId: string }

export class DoubleState {
  readonly apiKey = newId('sk-ant-api03')
  readonly queue: WorkQueue
  readonly sessions = new Map<string, ScriptedSession>()
  private readonly environmentKeys = new Map<string, string>()

  constructor(options: WorkQueueOptions) {
    this.queue = new WorkQueue(options)
  }

  createEnvironment(): { id: string; key: string } {
    const environment = { id: newId('env'), key: newId('sk-ant-envkey') }
    this.environmentKeys.set(environment.key, environment.id)
    return environment
  }

  hasEnvironment(environmentId: string): boolean {
    return [...this.environmentKeys.values()].includes(environmentId)
  }

  openSession(environmentId: string, script: SessionScript): ScriptedSession {
    if (!this.hasEnvironment(environmentId)) throw new Error(`no environment ${environmentId} in this double`)
    const session = new ScriptedSession(environmentId, script)
    this.sessions.set(session.id, session)
    session.start()
    this.queue.enqueue(environmentId, { type: 'session', id: session.id })
    return session
  }

  /** More turns for a session that ended its turn; a new work item when its last one is stopped. */
  continueSession(sessionId: string, turns: ScriptedCall[][], end?: SessionScript['end']): void {
    const session = this.session(sessionId)
    session.continueWith(turns, end)
    const items = [...this.queue.items.values()].filter((item) => item.data.id === sessionId)
    if (items.at(-1)?.state === 'stopped') this.queue.enqueue(session.environmentId, { type: 'session', id: sessionId })
  }

  session(sessionId: string): ScriptedSession {
    const session = this.sessions.get(sessionId)
    if (session === undefined) throw notFound(`session ${sessionId} not found`)
    return session
  }

  /** Who the request's `x-api-key` or `Authorization: Bearer` names; a 401 when nobody. */
  identify(headers: Record<string, string | string[] | undefined>): Credential {
    const bearer = /^Bearer (.+)$/.exec(String(headers.authorization ?? ''))?.[1]
    // The SDK (1.x) sends an `apiKey` as a bearer token; older clients send `x-api-key`.
    if (headers['x-api-key'] === this.apiKey || bearer === this.apiKey) return { kind: 'api_key' }
    if (bearer !== undefined) {
      const environmentId = this.environmentKeys.get(bearer)
      if (environmentId !== undefined) return { kind: 'environment_key', environmentId }
      // Every token a delivery carried stays valid for its item: a worker that lost the lease still
      // authenticates, and learns it lost the lease from the 412, as against the real service.
      for (const item of this.queue.items.values()) {
        if (item.tokens.has(bearer)) return { kind: 'sessions_token', workId: item.id }
      }
    }
    throw new ApiFailure(401, 'authentication_error', 'invalid x-api-key or bearer token')
  }

  /** A 403 unless `credential` may act on the environment's work queue. */
  checkEnvironmentAccess(credential: Credential, environmentId: string, allowApiKey: boolean): void {
    if (credential.kind === 'api_key' && allowApiKey) return
    if (credential.kind === 'environment_key' && credential.environmentId === environmentId) return
    if (
      credential.kind === 'sessions_token' &&
      this.queue.items.get(credential.workId)?.environmentId === environmentId
    ) {
      return
    }
    throw new ApiFailure(403, 'permission_error', `this credential may not act on environment ${environmentId}`)
  }

  /** A 403 unless `credential` may read or write the session's events. */
  checkSessionAccess(credential: Credential, session: ScriptedSession): void {
    if (credential.kind === 'api_key') return
    if (credential.kind === 'environment_key' && credential.environmentId === session.environmentId) return
    if (credential.kind === 'sessions_token' && this.queue.items.get(credential.workId)?.data.id === session.id) return
    throw new ApiFailure(403, 'permission_error', `this credential may not act on session ${session.id}`)
  }
}
