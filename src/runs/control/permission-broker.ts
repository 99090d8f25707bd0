import { randomUUID } from 'node:crypto'
import type { RunEventBody } from '../../events/run-event.js'
import type { PermissionPrompter, PermissionAnswer as PromptOutcome } from '../../permissions/permission-prompter.js'

/** An approver's answer (the prompter's other outcomes, timeout and no approver, come from here). */
export type PermissionAnswer = Extract<PromptOutcome, { decision: string }>

export type PermissionBrokerOptions = {
  emit: (event: RunEventBody) => void
  /** How long an ask waits for an answer; undefined: nobody is asked (a `wait: true` run). */
  timeoutMs: number | undefined
}

type Pending = { resolve: (outcome: PromptOutcome) => void; timer: NodeJS.Timeout; toolUseId: string }

/**
 * The approver side of one run: each ask becomes a `permission.requested` event and waits for a
 * `permission.response` frame or a POST, whichever comes first, up to the timeout. Every request
 * is resolved exactly once, and `permission.resolved` is emitted before the call goes on.
 */
export function createPermissionBroker({ emit, timeoutMs }: PermissionBrokerOptions) {
  const pending = new Map<string, Pending>()

  function settle(requestId: string, outcome: PromptOutcome): boolean {
    const entry = pending.get(requestId)
    if (!entry) return false
    pending.delete(requestId)
    clearTimeout(entry.timer)
    emit({
      type: 'permission.resolved',
      request_id: requestId,
      decision: 'decision' in outcome ? outcome.decision : 'deny',
    })
    entry.resolve(outcome)
    return true
  }

  const prompter: PermissionPrompter = {
    request(prompt) {
      if (timeoutMs === undefined) return Promise.resolve({ noApprover: true })
      const requestId = `perm_${randomUUID()}`
      return new Promise<PromptOutcome>((resolve) => {
        const timer = setTimeout(() => settle(requestId, { timedOut: true }), timeoutMs)
        timer.unref?.()
        pending.set(requestId, { resolve, timer, toolUseId: prompt.toolUseId })
        emit({
          type: 'permission.requested',
          request_id: requestId,
          tool_use_id: prompt.toolUseId,
          tool: prompt.tool,
          input: prompt.input,
          message: prompt.message,
        })
      })
    },
  }

  return {
    prompter,
    /** False when the request is unknown or already resolved. */
    answer: (requestId: string, answer: PermissionAnswer) => settle(requestId, answer),
    /** The run is being cancelled: every open ask is denied now, before the calls are stopped. */
    denyAll(message: string): void {
      for (const requestId of [...pending.keys()]) settle(requestId, { decision: 'deny', message })
    },
    /**
     * The call behind these asks has ended without an answer (its deadline, a sibling's error):
     * they are closed now, so no answer can arrive for a finished call and no late timeout
     * emits `permission.resolved` after `run.completed`.
     */
    withdraw(toolUseId: string, message: string): void {
      for (const [requestId, entry] of [...pending]) {
        if (entry.toolUseId === toolUseId) settle(requestId, { decision: 'deny', message })
      }
    },
    get pendingCount() {
      return pending.size
    },
  }
}
