import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequest,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server'
import { inputDigest } from '../../audit/audit-log.js'
import type { PermissionAnswer, PermissionPrompt, PermissionPrompter } from '../../permissions/permission-prompter.js'
import type { McpAskCodec, McpAskState } from './mcp-ask-state.js'

/** The key of the one input request toolexec sends: the ask of the call. */
export const ASK_INPUT_KEY = 'toolexec_permission'

/** The client user's answer to an ask, as read from a retried `tools/call`. */
export type McpAskAnswer = { state: McpAskState; decision: 'allow' | 'deny' | 'none' }

/** Longest input excerpt shown in the question: a person reads the gist, the full input is in the call. */
const MAX_EXCERPT = 500

function excerpt(input: { [key: string]: unknown }): string {
  const text =
    typeof input.command === 'string'
      ? input.command
      : typeof input.file_path === 'string'
        ? input.file_path
        : JSON.stringify(input)
  return text.length > MAX_EXCERPT ? `${text.slice(0, MAX_EXCERPT)}…` : text
}

/** The question as the client shows it: "Allow Bash: `rm -rf build`?", why it asks, and the hints. */
function askQuestion(prompt: PermissionPrompt): string {
  const lines = [`Allow ${prompt.tool}: \`${excerpt(prompt.input)}\`?`, prompt.message]
  const hints = prompt.hints
  if (hints) {
    const facts = [hints.read_only ? 'read-only' : 'not read-only', hints.destructive ? 'destructive' : undefined]
    if (hints.network !== undefined) facts.push(hints.network ? 'can reach the network' : 'no network')
    if (hints.outside_working_directories?.length)
      facts.push(`outside the working directories: ${hints.outside_working_directories.join(', ')}`)
    lines.push(facts.filter((fact) => fact !== undefined).join('; '))
  }
  return lines.join('\n')
}

/** The elicitation the ask becomes: one required choice, allow or deny (docs/adr/0353). */
export function askInputRequest(prompt: PermissionPrompt): InputRequest {
  return inputRequired.elicit({
    message: askQuestion(prompt),
    requestedSchema: {
      type: 'object',
      properties: {
        decision: {
          type: 'string',
          title: 'Decision',
          oneOf: [
            { const: 'allow', title: 'Allow this call' },
            { const: 'deny', title: 'Deny this call' },
          ],
        },
      },
      required: ['decision'],
    },
  })
}

/**
 * The answer a retried call carries: accept with `allow` or `deny`, a decline (a no), or nothing
 * usable (a cancel, a missing or malformed response), which is no answer and falls back to today's
 * denial rather than asking again.
 */
export function readAskAnswer(responses: Record<string, unknown> | undefined): McpAskAnswer['decision'] {
  const view = inputResponse(responses, ASK_INPUT_KEY)
  if (view.kind !== 'elicit') return 'none'
  if (view.action === 'decline') return 'deny'
  if (view.action !== 'accept') return 'none'
  const decision = view.content?.decision
  return decision === 'allow' || decision === 'deny' ? decision : 'none'
}

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

/**
 * Whether the request can take an input request with a form: only a 2026-07-28 request carries
 * its client's capabilities (the envelope), and the client must declare form elicitation (an
 * empty `elicitation` object means form, as the revision says).
 */
function clientCanElicitForm(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as { [key: string]: unknown } | undefined
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined
  const elicitation = capabilities?.elicitation as { form?: unknown; url?: unknown } | undefined
  if (elicitation === undefined) return false
  return elicitation.form !== undefined || elicitation.url === undefined
}

const isAskState = (value: unknown): value is McpAskState =>
  typeof value === 'object' &&
  value !== null &&
  (value as McpAskState).v === 1 &&
  typeof (value as McpAskState).toolUseId === 'string' &&
  typeof (value as McpAskState).tool === 'string' &&
  typeof (value as McpAskState).argumentsSha256 === 'string' &&
  typeof (value as McpAskState).inputSha256 === 'string'

/**
 * This round of a `tools/call`: whether the client can be asked, and on a retry the state it
 * echoed (already verified by the codec: signature, expiry, caller). A state for another tool or
 * other arguments is refused: an answer covers exactly the call it was asked about.
 */
export function askRoundOf(ctx: ServerContext, tool: string, input: unknown, codec: McpAskCodec | undefined) {
  const argumentsSha256 = inputDigest(input)
  const clientCanAnswer = codec !== undefined && clientCanElicitForm(ctx)
  const state = ctx.mcpReq.requestState<unknown>()
  if (state === undefined) return { argumentsSha256, clientCanAnswer }
  if (codec === undefined || !isAskState(state))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'This requestState was not issued by toolexec for a permission ask: call again without requestState',
    )
  if (state.tool !== tool || state.argumentsSha256 !== argumentsSha256)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `This requestState answers an ask about another call: retry ${state.tool} with the arguments it was issued for, or call again without requestState`,
    )
  return { argumentsSha256, clientCanAnswer, state }
}
