// One Managed Agents session inside the double, driven by a script instead of a model: each turn emits its
// `agent.tool_use` events and goes idle with `requires_action` until every call is resolved, then the next
// turn runs; after the last turn the session ends its turn (and, by default, terminates). Tests steer it
// (confirm, interrupt, terminate) and read back what the worker sent. docs/adr/0415-managed-agents-protocol-double.md.
import { acceptedAttempt, type ResultAttempt, refusedAttempts } from './result-attempts.js'
import { type CallRecord, checkSentEvents, type Permission } from './sent-event-rules.js'
import { sessionResource } from './session-resource.js'
import { ApiFailure, newId, timestamp } from './wire.js'

export type { ResultAttempt } from './result-attempts.js'

export interface ScriptedCall {
  name: string
  input?: Record<string, unknown>
  /** The server-evaluated permission; `ask` holds the call for a `user.tool_confirmation`. Default allow. */
  permission?: Permission
}

export interface SessionScript {
  /** Turns of tool calls, in order; a turn's calls are emitted together. */
  turns: ScriptedCall[][]
  /** After the last turn: `terminate` (default) also terminates the session; `end_turn` only idles. */
  end?: 'terminate' | 'end_turn'
}

export type SessionEvent = Record<string, unknown> & { id: string; type: string; processed_at: string }
type Listener = (event: SessionEvent) => void

const EVALUATION = { allow: 'always_allow', ask: 'always_ask', deny: 'always_ask' } as const

export class ScriptedSession {
  readonly id = newId('sesn')
  readonly events: SessionEvent[] = []
  readonly calls = new Map<string, CallRecord>()
  readonly attempts: ResultAttempt[] = []
  /** Tool-use ids per turn, in emission order. */
  readonly turnIds: string[][] = []
  status: 'running' | 'idle' | 'terminated' = 'idle'
  /** True once the script has nothing left to run (last turn resolved, or interrupted). */
  ended = false
  private turn = -1
  private readonly script: { turns: ScriptedCall[][]; end: SessionScript['end'] }
  private readonly listeners = new Set<Listener>()

  constructor(
    readonly environmentId: string,
    script: SessionScript,
  ) {
    // A copy: continueWith adds turns, and the caller's script object stays as it was.
    this.script = { turns: [...script.turns], end: script.end }
  }

  /** The session's first user message and first turn; the agent runs whether or not a worker is attached. */
  start(): void {
    this.append({ type: 'user.message', content: [{ type: 'text', text: 'scripted session' }] })
    this.advance()
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Applies events a client sent (a 400 refuses the whole batch); returns them as stored. */
  receive(sent: unknown): SessionEvent[] {
    let checked: ReturnType<typeof checkSentEvents>
    try {
      checked = checkSentEvents(sent, this.calls, this.status === 'terminated')
    } catch (error) {
      this.recordRefusedResults(sent, error)
      throw error
    }
    const stored = checked.map((event) => this.apply(event))
    this.settleTurn()
    return stored
  }

  /**
   * A new user message after the script ended its turn (`end: 'end_turn'`): `turns` run next, ending as
   * `end` says. The double queues a new work item when the session's last one is stopped.
   */
  continueWith(turns: ScriptedCall[][], end: SessionScript['end'] = 'terminate'): void {
    if (this.status === 'terminated') throw new Error(`session ${this.id} is terminated`)
    if (!this.ended) throw new Error(`session ${this.id} has not ended its turn yet`)
    // advance() moves to the next turn: the first of the new ones.
    this.turn = this.script.turns.length - 1
    this.script.turns.push(...turns)
    this.script.end = end
    this.ended = false
    this.append({ type: 'user.message', content: [{ type: 'text', text: 'scripted follow-up' }] })
    this.advance()
  }

  /** The user approves or denies an `ask` call (as the API would after `POST events` with an API key). */
  confirm(toolUseId: string, result: 'allow' | 'deny', denyMessage?: string): void {
    const event = { type: 'user.tool_confirmation', tool_use_id: toolUseId, result }
    this.receive([denyMessage === undefined ? event : { ...event, deny_message: denyMessage }])
  }

  interrupt(): void {
    this.receive([{ type: 'user.interrupt' }])
  }

  /** Terminates the session: the worker's runner ends on `session.status_terminated`. */
  terminate(): void {
    if (this.status === 'terminated') return
    this.ended = true
    this.status = 'terminated'
    this.append({ type: 'session.status_terminated' })
  }

  /** Accepted results for one call (exactly one is the rule). */
  resultsFor(toolUseId: string): ResultAttempt[] {
    return this.attempts.filter((attempt) => attempt.toolUseId === toolUseId && attempt.accepted)
  }

  /** Every refused send of a result, with the double's message. */
  refusedResults(): ResultAttempt[] {
    return this.attempts.filter((attempt) => !attempt.accepted)
  }

  /** Resolves with the first event (already stored or still to come) that `matches`. */
  waitForEvent(matches: (event: SessionEvent) => boolean): Promise<SessionEvent> {
    const found = this.events.find(matches)
    if (found !== undefined) return Promise.resolve(found)
    return new Promise((resolve) => {
      const stop = this.subscribe((event) => {
        if (!matches(event)) return
        stop()
        resolve(event)
      })
    })
  }

  /** Resolves once `toolUseId` has an accepted result. */
  waitForResult(toolUseId: string): Promise<SessionEvent> {
    return this.waitForEvent((event) => event.type === 'user.tool_result' && event.tool_use_id === toolUseId)
  }

  /** Resolves when the script has run to its end (or was interrupted). */
  waitForEnd(): Promise<unknown> {
    return this.waitForEvent(() => this.ended)
  }

  /** The session as `GET /v1/sessions/{id}` answers it. */
  toWire() {
    return sessionResource(this)
  }

  private append(event: Record<string, unknown> & { type: string }): SessionEvent {
    const stored = { id: newId('sevt'), ...event, processed_at: timestamp() } as SessionEvent
    this.events.push(stored)
    for (const listener of [...this.listeners]) listener(stored)
    return stored
  }

  private apply(event: Record<string, unknown> & { type: string }): SessionEvent {
    if (event.type === 'user.tool_result') {
      const call = this.calls.get(event.tool_use_id as string) as CallRecord
      this.attempts.push(acceptedAttempt(event, call, this.attempts.length))
      call.status = 'answered'
    } else if (event.type === 'user.tool_confirmation') {
      const call = this.calls.get(event.tool_use_id as string) as CallRecord
      call.status = event.result === 'allow' ? 'confirmed' : 'denied'
    }
    const stored = this.append(event)
    if (event.type === 'user.interrupt') this.interrupted()
    return stored
  }

  /** Every unresolved call ends as interrupted; the session idles with the turn over and the script stops. */
  private interrupted(): void {
    for (const call of this.calls.values()) {
      if (call.status === 'open' || call.status === 'awaiting_confirmation' || call.status === 'confirmed') {
        call.interruptedWhile = call.status
        call.status = 'interrupted'
      }
    }
    this.ended = true
    this.status = 'idle'
    this.append({ type: 'session.status_idle', stop_reason: { type: 'end_turn' }, stop_details: null })
  }

  private settleTurn(): void {
    if (this.ended || this.turn < 0) return
    const open = this.turnIds[this.turn]?.some((id) => {
      const status = this.calls.get(id)?.status
      return status === 'open' || status === 'awaiting_confirmation' || status === 'confirmed'
    })
    if (!open) this.advance()
  }

  private advance(): void {
    this.turn += 1
    const calls = this.script.turns[this.turn]
    if (calls === undefined) {
      this.finish()
      return
    }
    this.status = 'running'
    this.append({ type: 'session.status_running' })
    const ids = calls.map((spec) => this.emitCall(spec))
    this.turnIds.push(ids)
    const waiting = ids.filter((id) => this.calls.get(id)?.status !== 'denied')
    if (waiting.length === 0) {
      this.advance()
      return
    }
    this.status = 'idle'
    this.append({
      type: 'session.status_idle',
      stop_reason: { type: 'requires_action', event_ids: waiting },
      stop_details: null,
    })
  }

  private emitCall(spec: ScriptedCall): string {
    const permission = spec.permission ?? 'allow'
    const event = this.append({
      type: 'agent.tool_use',
      name: spec.name,
      input: spec.input ?? {},
      evaluated_permission: permission,
      evaluation: { type: EVALUATION[permission] },
    })
    // A server-side deny resolves the call at once: the worker never runs it.
    const status = permission === 'ask' ? 'awaiting_confirmation' : permission === 'deny' ? 'denied' : 'open'
    this.calls.set(event.id, { id: event.id, name: spec.name, permission, turn: this.turn, status })
    return event.id
  }

  private finish(): void {
    this.ended = true
    this.status = 'idle'
    this.append({ type: 'agent.message', content: [{ type: 'text', text: 'Scripted turn done.' }] })
    this.append({ type: 'session.status_idle', stop_reason: { type: 'end_turn' }, stop_details: null })
    if ((this.script.end ?? 'terminate') === 'terminate') this.terminate()
  }

  private recordRefusedResults(sent: unknown, error: unknown): void {
    if (error instanceof ApiFailure)
      this.attempts.push(...refusedAttempts(sent, error, this.calls, this.attempts.length))
  }
}
