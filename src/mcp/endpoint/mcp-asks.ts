import {
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  type InputRequest,
  type InputRequiredResult,
  inputRequired,
  inputResponse,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server'
import { inputDigest } from '../../audit/audit-log.js'
import type { PermissionPrompt } from '../../permissions/permission-prompter.js'
import type { McpAskAnswer } from './mcp-ask-prompter.js'
import type { McpAskCodec, McpAskState } from './mcp-ask-state.js'

/** The key of the one input request toolexec sends: the ask of the call. */
const ASK_INPUT_KEY = 'toolexec_permission'

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
function askInputRequest(prompt: PermissionPrompt): InputRequest {
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
function readAskAnswer(responses: Record<string, unknown> | undefined): McpAskAnswer['decision'] {
  const view = inputResponse(responses, ASK_INPUT_KEY)
  if (view.kind !== 'elicit') return 'none'
  if (view.action === 'decline') return 'deny'
  if (view.action !== 'accept') return 'none'
  const decision = view.content?.decision
  return decision === 'allow' || decision === 'deny' ? decision : 'none'
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

/** This round of a `tools/call`: whether the client can be asked, and on a retry its answer. */
export type McpAskRound = { clientCanAnswer: boolean; answer?: McpAskAnswer }

/**
 * Reads the round from the request. The echoed state is already verified by the codec
 * (signature, expiry, caller); a state for another tool or other arguments is refused: an
 * answer covers exactly the call it was asked about (docs/adr/0354).
 */
export function askRoundOf(
  ctx: ServerContext,
  tool: string,
  input: unknown,
  codec: McpAskCodec | undefined,
): McpAskRound {
  const clientCanAnswer = codec !== undefined && clientCanElicitForm(ctx)
  const state = ctx.mcpReq.requestState<unknown>()
  if (state === undefined) return { clientCanAnswer }
  if (codec === undefined || !isAskState(state))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      'This requestState was not issued by toolexec for a permission ask: call again without requestState',
    )
  if (state.tool !== tool || state.argumentsSha256 !== inputDigest(input))
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `This requestState answers an ask about another call: retry ${state.tool} with the arguments it was issued for, or call again without requestState`,
    )
  return { clientCanAnswer, answer: { state, decision: readAskAnswer(ctx.mcpReq.inputResponses) } }
}

/** The `input_required` answer to a call that asked: the question, and the state its retry echoes. */
export async function askTheClient(
  codec: McpAskCodec,
  ctx: ServerContext,
  call: { asked: PermissionPrompt; toolUseId: string; arguments: unknown },
): Promise<InputRequiredResult> {
  const state: McpAskState = {
    v: 1,
    toolUseId: call.toolUseId,
    tool: call.asked.tool,
    argumentsSha256: inputDigest(call.arguments),
    inputSha256: inputDigest(call.asked.input),
  }
  return inputRequired({
    inputRequests: { [ASK_INPUT_KEY]: askInputRequest(call.asked) },
    requestState: await codec.mint(state, ctx),
  })
}
