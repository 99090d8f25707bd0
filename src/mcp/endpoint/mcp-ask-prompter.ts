import { inputDigest } from '../../audit/audit-log.js'
import type { PermissionAnswer, PermissionPrompt, PermissionPrompter } from '../../permissions/permission-prompter.js'
import type { McpAskState } from './mcp-ask-state.js'

/** The client user's answer to an ask, as read from a retried `tools/call` (`none`: no usable answer). */
export type McpAskAnswer = { state: McpAskState; decision: 'allow' | 'deny' | 'none' }

/**
 * The prompter of one call over `/mcp` (docs/adr/0353). First round: an ask is noted (`asked`)
 * and denied as with no approver, the run ends, and the endpoint turns the ask into an input
 * request. Retry: the ask of the same tool_use with the same input gets the client user's
 * answer, recorded as given by `keyName` through an MCP input request; any other ask is noted
 * and denied as before. Without `canAsk` nothing is noted: the call is denied as today.
 */
export function createMcpAskPrompter(options: { canAsk: boolean; keyName?: string; answer?: McpAskAnswer }) {
  let asked: PermissionPrompt | undefined
  const prompter: PermissionPrompter = {
    async request(prompt) {
      const answer = options.answer
      const answers =
        answer !== undefined &&
        answer.state.toolUseId === prompt.toolUseId &&
        answer.state.tool === prompt.tool &&
        answer.state.inputSha256 === inputDigest(prompt.input)
      if (answers && answer.decision !== 'none') {
        const who = {
          via: 'mcp_input_request',
          ...(options.keyName === undefined ? {} : { by: options.keyName }),
        } as const
        return { decision: answer.decision, ...who } satisfies PermissionAnswer
      }
      // An answered round that gave no answer is not asked again: the client's loop ends here.
      if (options.canAsk && !answers) asked = prompt
      return { noApprover: true }
    },
  }
  return {
    prompter,
    /** The ask the call raised that the client can answer, once the run has ended. */
    get asked(): PermissionPrompt | undefined {
      return asked
    },
  }
}
