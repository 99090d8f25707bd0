import { ApiError } from '../errors/api-error.js'
import type { AssistantMessage, ToolUseBlock } from '../messages/content-blocks.js'
import { MAX_TOKENS_REASON } from './stream/stream-event-assembler.js'

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
