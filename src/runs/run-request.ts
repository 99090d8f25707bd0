import { createHash } from 'node:crypto'
import { z } from 'zod'
import { ApiError } from '../errors/api-error.js'
import type { RunOptions } from '../executor/run-options.js'
import type { Logger } from '../logging/logger.js'
import { canonicalJson } from '../messages/canonical-json.js'
import type { AssistantMessage, ToolUseBlock } from '../messages/content-blocks.js'
import type { PermissionPrompter } from '../permissions/permission-prompter.js'
import type { RunMode } from '../stores/run-store.js'
import { MAX_TOKENS_REASON } from './stream/stream-event-assembler.js'
import type { StreamFrame } from './stream/stream-frame.js'

/**
 * The one place a run request is built from the outside (docs/adr/0190-run-core-cut-along-its-lifecycle.md):
 * a POST /v1/runs body, a `run.start` frame, or an MCP `tools/call` becomes the `StartRunRequest`
 * the run manager takes, with the input checked and the per-request options named once.
 */
export type StartRunRequest = {
  tenant: string
  sessionId?: string
  mode: RunMode
  input: PreparedInput
  options: RunRequestOptions
  idempotency?: { key: string; fingerprint: string }
  logger?: Logger
  /** Who answers the run's asks instead of its own broker: an MCP client (docs/adr/0353-asks-over-mcp-as-input-requests.md). */
  prompter?: PermissionPrompter
}

/** Who asks, as the entrance knows it. */
export type Caller = { tenant: string; logger?: Logger | undefined }

/** POST /v1/runs: `wait` picks the mode, the Idempotency-Key is bound to the body's fingerprint. */
export function requestFromBody(
  body: RunInput & RunRequestOptions & { wait?: boolean | undefined; session_id?: string | undefined },
  caller: Caller & { idempotencyKey?: string | undefined },
  limits: InputLimits,
): StartRunRequest {
  const { wait, session_id, tool_uses, message, ...options } = body
  const key = caller.idempotencyKey
  return {
    tenant: caller.tenant,
    ...(session_id === undefined ? {} : { sessionId: session_id }),
    mode: wait ? 'wait' : 'async',
    input: prepareRunInput({ tool_uses, message }, limits),
    options,
    ...(key === undefined ? {} : { idempotency: { key, fingerprint: runFingerprint(body) } }),
    ...(caller.logger ? { logger: caller.logger } : {}),
  }
}

/** `run.start` of streamed input: no blocks yet; `content` is the message the blocks stream into. */
export function requestFromStreamStart(
  frame: Extract<StreamFrame, { type: 'run.start' }>,
  caller: Caller,
  content: AssistantMessage['content'],
): StartRunRequest {
  const { type: _type, session_id, ...options } = frame
  return {
    tenant: caller.tenant,
    ...(session_id === undefined ? {} : { sessionId: session_id }),
    mode: 'stream',
    input: { blocks: [], refusals: new Map(), parentMessage: { role: 'assistant', content, stop_reason: null } },
    options,
    ...(caller.logger ? { logger: caller.logger } : {}),
  }
}

/** An MCP `tools/call`: a one-block run in `wait` mode, in the caller's session (none: a session of its own). */
export function requestFromMcpCall(
  block: ToolUseBlock,
  caller: Caller & { sessionId?: string | undefined },
  limits: InputLimits,
  prompter?: PermissionPrompter,
): StartRunRequest {
  return {
    tenant: caller.tenant,
    ...(caller.sessionId === undefined ? {} : { sessionId: caller.sessionId }),
    mode: 'wait',
    input: prepareRunInput({ tool_uses: [block] }, limits),
    options: {},
    ...(caller.logger ? { logger: caller.logger } : {}),
    ...(prompter ? { prompter } : {}),
  }
}

/**
 * One turn of a Claude Managed Agents session (docs/managed-agents.md): streamed input into the
 * toolexec session that stands for it; `content` is the message its calls stream into.
 */
export function requestFromManagedAgentsTurn(
  caller: Caller,
  sessionId: string,
  content: AssistantMessage['content'],
): StartRunRequest {
  return {
    tenant: caller.tenant,
    sessionId,
    mode: 'stream',
    input: { blocks: [], refusals: new Map(), parentMessage: { role: 'assistant', content, stop_reason: null } },
    options: {},
    ...(caller.logger ? { logger: caller.logger } : {}),
  }
}

/** The two ways a batch arrives: bare blocks, or the assistant message they came in. */
export type RunInput = {
  tool_uses?: ToolUseBlock[] | undefined
  message?:
    | {
        role: 'assistant'
        content: Array<{ type: string; [key: string]: unknown }>
        stop_reason?: string | null | undefined
      }
    | undefined
}

export type InputLimits = { maxBlocksPerRun: number; maxInputBytes: number }

export type PreparedInput = {
  blocks: ToolUseBlock[]
  /** Blocks that get an error result instead of running, by id. */
  refusals: Map<string, string>
  parentMessage: AssistantMessage
}

/**
 * Picks the tool_use blocks out of a request and checks what must be refused before anything
 * runs: no blocks, too many, duplicate ids, oversized inputs. A `max_tokens` stop refuses the
 * last block, whose input may be cut off.
 */
export function prepareRunInput(input: RunInput, limits: InputLimits): PreparedInput {
  if ((input.tool_uses === undefined) === (input.message === undefined)) {
    throw new ApiError('invalid_request', 'Send exactly one of `tool_uses` or `message`')
  }
  const blocks = input.tool_uses ?? pickToolUses(input.message!.content)
  if (blocks.length === 0) throw new ApiError('no_tool_uses', 'The request contains no tool_use blocks')
  checkBlocks(blocks, limits, new Set())
  const refusals = new Map<string, string>()
  if (input.message?.stop_reason === 'max_tokens') refusals.set(blocks.at(-1)!.id, MAX_TOKENS_REASON)
  const parentMessage: AssistantMessage = input.message
    ? { role: 'assistant', content: input.message.content, stop_reason: input.message.stop_reason ?? null }
    : { role: 'assistant', content: blocks, stop_reason: 'tool_use' }
  return { blocks, refusals, parentMessage }
}

/** Checks blocks against the limits; `seen` carries ids across calls for streamed input. */
export function checkBlocks(blocks: readonly ToolUseBlock[], limits: InputLimits, seen: Set<string>): void {
  if (seen.size + blocks.length > limits.maxBlocksPerRun) {
    throw new ApiError(
      'too_many_blocks',
      `A run takes at most ${limits.maxBlocksPerRun} tool_use blocks (TOOLEXEC_MAX_BLOCKS_PER_RUN)`,
    )
  }
  for (const block of blocks) {
    if (seen.has(block.id))
      throw new ApiError('duplicate_tool_use_id', `tool_use id ${block.id} appears more than once`)
    seen.add(block.id)
    const size = Buffer.byteLength(JSON.stringify(block.input) ?? '')
    if (size > limits.maxInputBytes) {
      throw new ApiError(
        'input_too_large',
        `The input of tool_use ${block.id} is ${size} bytes; the limit is ${limits.maxInputBytes} (TOOLEXEC_MAX_INPUT_BYTES)`,
      )
    }
  }
}

function pickToolUses(content: NonNullable<RunInput['message']>['content']): ToolUseBlock[] {
  return content
    .filter((block) => block.type === 'tool_use')
    .map((block) => ({ type: 'tool_use', id: String(block.id), name: String(block.name), input: block.input }))
}

const positiveInteger = z.number().int().min(1)

/** The per-request knobs of docs/design.md §10, as the API names them (POST /v1/runs and `run.start`). */
export const RunRequestOptionsShape = {
  max_concurrency: positiveInteger.optional().describe('Lower the operator cap on calls executing at once'),
  timeout_ms: positiveInteger.optional().describe('Deadline for the whole run'),
  call_timeout_ms: positiveInteger.optional().describe("Per-call deadline overriding each tool's default"),
  cancel_on_error: z
    .enum(['bash', 'any', 'none'])
    .optional()
    .describe('Which errors cancel the unfinished sibling calls (default bash)'),
  max_result_chars: positiveInteger
    .optional()
    .describe('Lower the budget for all results of the run together (TOOLEXEC_MAX_RESULT_CHARS is the ceiling)'),
  permission_timeout_ms: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('How long a permission ask waits for an answer; wait:true runs deny at once without it'),
}
export type RunRequestOptions = z.infer<z.ZodObject<typeof RunRequestOptionsShape>>

export type OperatorLimits = {
  maxToolUseConcurrency: number
  maxResultChars: number
  permissionTimeoutMs: number
  /** The ceiling on `permission_timeout_ms` (TOOLEXEC_MAX_PERMISSION_TIMEOUT_MS). */
  maxPermissionTimeoutMs?: number
}

/** The executor's options: a request may lower the operator's concurrency cap and result budget, never raise them. */
export function runOptionsOf(request: RunRequestOptions, limits: OperatorLimits): RunOptions {
  return {
    maxConcurrency: Math.min(request.max_concurrency ?? limits.maxToolUseConcurrency, limits.maxToolUseConcurrency),
    cancelOnError: request.cancel_on_error ?? 'bash',
    // Like the concurrency cap, the operator's budget is a ceiling (docs/adr/0098-result-budget-is-a-ceiling.md).
    maxResultChars: Math.min(request.max_result_chars ?? limits.maxResultChars, limits.maxResultChars),
    ...(request.call_timeout_ms === undefined ? {} : { callTimeoutMs: request.call_timeout_ms }),
    ...(request.timeout_ms === undefined ? {} : { runTimeoutMs: request.timeout_ms }),
  }
}

/** `wait: true` runs have nobody to ask unless the request says how long to wait (docs/design.md §7). */
export function permissionTimeoutOf(mode: RunMode, request: RunRequestOptions, limits: OperatorLimits) {
  const asked = request.permission_timeout_ms
  const max = limits.maxPermissionTimeoutMs
  if (asked !== undefined && max !== undefined && asked > max) {
    // Refused, not lowered: a client that asks for a week and gets an hour would deny unawares.
    throw new ApiError(
      'permission_timeout_too_long',
      `permission_timeout_ms is ${asked}; this server lets an ask wait at most ${max} ms (TOOLEXEC_MAX_PERMISSION_TIMEOUT_MS)`,
    )
  }
  if (mode === 'wait') return asked
  return request.permission_timeout_ms ?? limits.permissionTimeoutMs
}

/** A stable hash of a request body: key order does not matter, values do. */
export function runFingerprint(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex')
}
