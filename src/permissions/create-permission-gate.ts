import type { PermissionGate, PermissionRequest } from '../executor/permission-gate.js'
import { REJECT_MESSAGE, wrapToolUseError } from '../messages/tool-error-messages.js'
import { observableCopy, parseToolInput, stripInternalKeys } from '../tool/parse-tool-input.js'
import type { PermissionDecision, PermissionDecisionReason } from '../tool/permission-result.js'
import { decidePermission } from './decide-permission.js'
import { describeAsk } from './describe-ask.js'
import { permissionMessages as messages } from './permission-messages.js'
import type { PermissionAnswer, PermissionPrompter } from './permission-prompter.js'

export type PermissionGateOptions = {
  /** Who answers asks; without one every ask is denied as "no approver is connected". */
  prompter?: PermissionPrompter | undefined
  /** How long the prompter waits for an answer; used to word the timeout denial. */
  timeoutMs: number
  /** Whether a shell command reaches the network where it runs (no bwrap sandbox): an ask hint. */
  shellNetwork?: boolean
}

type AskEnding = Omit<Extract<PermissionDecisionReason, { type: 'user' }>, 'type'>

const deny = (message: string, ending: AskEnding = {}): PermissionDecision => ({
  behavior: 'deny',
  message,
  decisionReason: { type: 'user', ...ending },
})

/** Resolves with the answer, or with `undefined` once the run is cancelled. */
function answerOrAbort(promise: Promise<PermissionAnswer>, signal: AbortSignal): Promise<PermissionAnswer | undefined> {
  if (signal.aborted) return Promise.resolve(undefined)
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/**
 * Input the approver edited is parsed with the tool's schema, validated by `validateInput`, and
 * checked again by the rules with no hook opinion: a deny rule (or the tool's own deny, or plan
 * mode) still wins over the approver.
 */
async function allowEditedInput(
  request: PermissionRequest,
  edited: unknown,
  ending: AskEnding,
): Promise<PermissionDecision> {
  const { tool, context } = request
  const parsed = parseToolInput(tool, edited)
  if (!parsed.ok) return deny(parsed.message, ending)
  const input = stripInternalKeys(tool, parsed.data)
  const validation = (await tool.validateInput?.(input, context)) ?? { result: true }
  if (!validation.result) return deny(wrapToolUseError(validation.message), ending)
  const recheck = await decidePermission({ tool, input: observableCopy(tool, input), context })
  if (recheck.behavior === 'deny') return recheck
  return { behavior: 'allow', updatedInput: input, decisionReason: { type: 'user', ...ending } }
}

/**
 * The PermissionGate the executor calls at step 6: the rules engine first, and for an ask the
 * prompter (the run layer's `permission.requested` / `permission.resolved` round trip).
 * Every way an ask can end without an approval is a deny whose text says why.
 */
export function createPermissionGate(options: PermissionGateOptions): PermissionGate {
  if (!Number.isFinite(options?.timeoutMs) || options.timeoutMs < 0) {
    throw new TypeError('createPermissionGate: `timeoutMs` must be a non-negative number')
  }
  const { prompter, timeoutMs } = options
  return {
    async decide(request) {
      const check = await decidePermission(request)
      if (check.behavior !== 'ask') return check
      const name = request.tool.name
      if (!prompter) return deny(messages.deniedNoApprover(name), { ended: 'no_approver' })
      let answer: PermissionAnswer | undefined
      try {
        const { hints, alwaysRule } = await describeAsk(request, check, options.shellNetwork ?? true)
        const prompt = {
          toolUseId: request.context.toolUseId,
          tool: name,
          input: request.input,
          message: check.message,
          hints,
          alwaysRule,
        }
        answer = await answerOrAbort(prompter.request(prompt), request.context.abortSignal)
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error)
        return deny(messages.deniedPromptFailed(name, reason), { ended: 'prompt_failed' })
      }
      if (answer === undefined) return deny(REJECT_MESSAGE, { ended: 'cancelled' })
      if ('timedOut' in answer) return deny(messages.deniedTimeout(name, timeoutMs), { ended: 'timeout' })
      if ('noApprover' in answer) return deny(messages.deniedNoApprover(name), { ended: 'no_approver' })
      const ending: AskEnding = {
        ended: (answer.decision === 'deny' ? answer.ended : undefined) ?? 'answer',
        ...(answer.by === undefined ? {} : { by: answer.by }),
        ...(answer.via === undefined ? {} : { via: answer.via }),
        ...(answer.decision === 'allow' && answer.always ? { always: true } : {}),
        ...(answer.decision === 'allow' && answer.updatedInput !== undefined ? { edited: true } : {}),
      }
      if (answer.decision === 'deny') {
        return deny(answer.message?.trim() ? answer.message : messages.deniedByApprover(name), ending)
      }
      if (answer.updatedInput === undefined) return { behavior: 'allow', decisionReason: { type: 'user', ...ending } }
      return allowEditedInput(request, answer.updatedInput, ending)
    },
  }
}
