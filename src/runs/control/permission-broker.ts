import { randomUUID } from 'node:crypto'
import type { RunEventBody } from '../../events/run-event.js'
import type { PermissionPrompter, PermissionAnswer as PromptOutcome } from '../../permissions/permission-prompter.js'
import type { OpenAsk } from '../../stores/run-store.js'

/** An approver's answer (the prompter's other outcomes, timeout and no approver, come from here). */
export type PermissionAnswer = Extract<PromptOutcome, { decision: string }>

type Resolution = Extract<RunEventBody, { type: 'permission.resolved' }>['reason']

/** An ask this run had open before an instance took it over: reused by its tool_use id, not asked again. */
export type AdoptedAsk = { requestId: string; expiresAt: number }

export type PermissionBrokerOptions = {
  emit: (event: RunEventBody) => void
  /** How long an ask waits for an answer; undefined: nobody is asked (a `wait: true` run). */
  timeoutMs: number | undefined
  now?: () => number
  /**
   * An ask opens (true) or closes (false) for the call: the run pauses the call's deadline and
   * admission counts it as waiting, not executing. Answering false to an opening refuses the ask
   * (the bound on waiting asks, docs/adr/0241-asks-wait-without-holding-a-slot.md).
   */
  onWaiting?: (toolUseId: string, waiting: boolean) => boolean
  /** The asks open now, whenever they change (stored on the run record). */
  onOpenAsks?: (asks: OpenAsk[]) => void
  /** "Allow always": adds the rule to the run's session (and the calls after this answer). */
  addSessionRule?: (rule: string) => void
  adopted?: ReadonlyMap<string, AdoptedAsk>
  /** Why an ask was refused over the waiting bound, as the model reads it. */
  waitingBoundMessage?: (tool: string) => string
}

type Pending = {
  resolve: (outcome: PromptOutcome) => void
  timer: NodeJS.Timeout
  toolUseId: string
  alwaysRule: string | undefined
  summary: OpenAsk
}

// setTimeout's ceiling; longer asks are re-armed when it fires.
const MAX_TIMER_MS = 2_147_483_647

/**
 * The approver side of one run: each ask becomes a `permission.requested` event (with its
 * deadline and hints) and waits for a `permission.response` frame or a POST, whichever comes
 * first, up to the deadline. Every request is resolved exactly once, and `permission.resolved`
 * (saying how it ended and which key answered) is emitted before the call goes on.
 */
export function createPermissionBroker(options: PermissionBrokerOptions) {
  const { emit, timeoutMs } = options
  const now = options.now ?? Date.now
  const pending = new Map<string, Pending>()
  const adopted = new Map(options.adopted ?? [])
  /** Answers that reached an adopted ask before its call asked again on this instance. */
  const early = new Map<string, PermissionAnswer>()

  const publishOpenAsks = () => options.onOpenAsks?.([...pending.values()].map((entry) => entry.summary))

  function settle(requestId: string, outcome: PromptOutcome, reason: NonNullable<Resolution>): boolean {
    const entry = pending.get(requestId)
    if (!entry) return false
    pending.delete(requestId)
    clearTimeout(entry.timer)
    options.onWaiting?.(entry.toolUseId, false)
    publishOpenAsks()
    const decision = 'decision' in outcome ? outcome.decision : 'deny'
    let ruleAdded: string | undefined
    const always = 'decision' in outcome && outcome.decision === 'allow' && outcome.always === true
    if (always && entry.alwaysRule !== undefined && options.addSessionRule) {
      options.addSessionRule(entry.alwaysRule)
      ruleAdded = entry.alwaysRule
    }
    const by = 'decision' in outcome ? outcome.by : undefined
    emit({
      type: 'permission.resolved',
      request_id: requestId,
      decision,
      reason,
      ...(by === undefined ? {} : { answered_by: by }),
      ...(ruleAdded === undefined ? {} : { rule_added: ruleAdded }),
    })
    entry.resolve(outcome)
    return true
  }

  function arm(requestId: string, expiresAt: number): NodeJS.Timeout {
    const wait = Math.max(0, expiresAt - now())
    const timer = setTimeout(
      () => {
        const entry = pending.get(requestId)
        if (!entry) return
        if (now() < expiresAt) entry.timer = arm(requestId, expiresAt)
        else settle(requestId, { timedOut: true }, 'timeout')
      },
      Math.min(wait, MAX_TIMER_MS),
    )
    timer.unref?.()
    return timer
  }

  const prompter: PermissionPrompter = {
    request(prompt) {
      if (timeoutMs === undefined) return Promise.resolve({ noApprover: true })
      const reused = adopted.get(prompt.toolUseId)
      adopted.delete(prompt.toolUseId)
      const requestId = reused?.requestId ?? `perm_${randomUUID()}`
      const openedAt = now()
      const expiresAt = reused?.expiresAt ?? openedAt + timeoutMs
      if (options.onWaiting?.(prompt.toolUseId, true) === false) {
        const message = options.waitingBoundMessage?.(prompt.tool) ?? 'Too many asks are waiting'
        // An adopted ask is open in the log: it is closed there too, saying why.
        if (reused)
          emit({ type: 'permission.resolved', request_id: requestId, decision: 'deny', reason: 'waiting_bound' })
        return Promise.resolve({ decision: 'deny', message, ended: 'waiting_bound' })
      }
      return new Promise<PromptOutcome>((resolve) => {
        const summary: OpenAsk = {
          request_id: requestId,
          tool_use_id: prompt.toolUseId,
          tool: prompt.tool,
          opened_at: new Date(openedAt).toISOString(),
          expires_at: new Date(expiresAt).toISOString(),
        }
        pending.set(requestId, {
          resolve,
          timer: arm(requestId, expiresAt),
          toolUseId: prompt.toolUseId,
          alwaysRule: prompt.alwaysRule,
          summary,
        })
        // An adopted ask is in the event log already: its first event still stands.
        if (!reused) {
          emit({
            type: 'permission.requested',
            request_id: requestId,
            tool_use_id: prompt.toolUseId,
            tool: prompt.tool,
            input: prompt.input,
            message: prompt.message,
            expires_at: summary.expires_at,
            ...(prompt.hints ? { hints: prompt.hints } : {}),
          })
        }
        publishOpenAsks()
        const answered = early.get(requestId)
        if (answered) {
          early.delete(requestId)
          settle(requestId, answered, 'answer')
        }
      })
    },
  }

  return {
    prompter,
    /** False when the request is unknown or already resolved. */
    answer(requestId: string, answer: PermissionAnswer): boolean {
      if (settle(requestId, answer, 'answer')) return true
      // An adopted ask whose call has not asked again yet keeps its answer for when it does.
      if ([...adopted.values()].some((ask) => ask.requestId === requestId) && !early.has(requestId)) {
        early.set(requestId, answer)
        return true
      }
      return false
    },
    /** The run is being cancelled: every open ask is denied now, before the calls are stopped. */
    denyAll(message: string): void {
      for (const requestId of [...pending.keys()])
        settle(requestId, { decision: 'deny', message, ended: 'cancelled' }, 'cancelled')
    },
    /**
     * The call behind these asks has ended without an answer (its deadline, a sibling's error):
     * they are closed now, so no answer can arrive for a finished call and no late timeout
     * emits `permission.resolved` after `run.completed`.
     */
    withdraw(toolUseId: string, message: string): void {
      for (const [requestId, entry] of [...pending]) {
        if (entry.toolUseId === toolUseId)
          settle(requestId, { decision: 'deny', message, ended: 'cancelled' }, 'withdrawn')
      }
    },
    get pendingCount() {
      return pending.size
    },
  }
}
