import type { ToolUseBlock } from '../../messages/content-blocks.js'
import { exceedsJsonDepth, jsonDepthMessage } from '../../messages/json-nesting-depth.js'

/** The Messages API stream events the assembler understands (others are ignored). */
export type MessageStreamEvent =
  | { type: 'message_start'; message?: unknown }
  | { type: 'content_block_start'; index: number; content_block: { type: string; [key: string]: unknown } }
  | {
      type: 'content_block_delta'
      index: number
      delta: { type: string; partial_json?: string | undefined; [key: string]: unknown }
    }
  | { type: 'content_block_stop'; index: number }
  | {
      type: 'message_delta'
      delta: { stop_reason?: string | null | undefined; [key: string]: unknown }
      [key: string]: unknown
    }
  | { type: 'message_stop' }
  | { type: 'ping' }
  | { type: 'error'; error?: unknown }

/** What the caller does next: run a complete block, give one an error result, or end the input. */
export type AssemblerAction =
  | { type: 'run'; block: ToolUseBlock }
  | { type: 'refuse'; block: ToolUseBlock; reason: string }
  | { type: 'end' }

/** `bytes` counts every piece received, also those dropped once the input is over the limit. */
type OpenBlock = { id: string; name: string; json: string; bytes: number; initialInput: unknown }

export const MAX_TOKENS_REASON =
  'The response was cut off by max_tokens, so this tool_use block may be incomplete and was not run.'
const INCOMPLETE_REASON = 'The stream ended before this tool_use block was complete, so it was not run.'

/**
 * Rebuilds tool_use blocks from Messages API stream events. A finished block is held back until
 * the next block starts or the message says why it stopped: a `max_tokens` stop means the last
 * block may be cut off, so it is refused rather than run (docs/design.md §10). Pure: no I/O, no timers.
 */
export function createStreamEventAssembler(options: { maxInputBytes?: number; maxInputDepth?: number } = {}) {
  const maxInputBytes = options.maxInputBytes ?? Number.POSITIVE_INFINITY
  const maxInputDepth = options.maxInputDepth ?? Number.POSITIVE_INFINITY
  const open = new Map<number, OpenBlock>()
  /** The last finished block, with the reason it cannot run if its input did not parse. */
  let held: { block: ToolUseBlock; invalid?: string } | undefined
  let ended = false

  function release(): AssemblerAction[] {
    const entry = held
    held = undefined
    if (!entry) return []
    return [
      entry.invalid
        ? { type: 'refuse', block: entry.block, reason: entry.invalid }
        : { type: 'run', block: entry.block },
    ]
  }

  function refuseOpen(reason: string): AssemblerAction[] {
    const actions: AssemblerAction[] = [...open.values()].map((block) => ({
      type: 'refuse',
      block: { type: 'tool_use', id: block.id, name: block.name, input: block.initialInput ?? {} },
      reason,
    }))
    open.clear()
    return actions
  }

  function finish(stoppedByMaxTokens: boolean): AssemblerAction[] {
    ended = true
    const heldActions: AssemblerAction[] =
      stoppedByMaxTokens && held ? [{ type: 'refuse', block: held.block, reason: MAX_TOKENS_REASON }] : release()
    held = undefined
    return [...heldActions, ...refuseOpen(stoppedByMaxTokens ? MAX_TOKENS_REASON : INCOMPLETE_REASON), { type: 'end' }]
  }

  function stop(index: number): AssemblerAction[] {
    const block = open.get(index)
    if (!block) return []
    open.delete(index)
    const actions = release()
    const text = block.json.trim()
    let input: unknown = block.initialInput ?? {}
    let invalid: string | undefined
    if (block.bytes > maxInputBytes) {
      input = {}
      invalid = `The input of tool_use ${block.id} is ${block.bytes} bytes; the limit is ${maxInputBytes} (TOOLEXEC_MAX_INPUT_BYTES)`
    } else if (exceedsJsonDepth(text, maxInputDepth)) {
      // The pieces arrive as strings, so the frame check never saw this nesting (ADR 0095).
      input = {}
      invalid = jsonDepthMessage(`The input of tool_use ${block.id}`, maxInputDepth)
    } else if (text !== '') {
      try {
        input = JSON.parse(text)
      } catch {
        input = {}
        invalid = 'The tool_use input is not valid JSON, so the block was not run.'
      }
    }
    held = { block: { type: 'tool_use', id: block.id, name: block.name, input }, ...(invalid ? { invalid } : {}) }
    return actions
  }

  return {
    get ended() {
      return ended
    },
    /** Bytes of input JSON held for blocks still streaming (each stays within `maxInputBytes`). */
    get bufferedBytes() {
      let total = 0
      for (const block of open.values()) total += Buffer.byteLength(block.json)
      return total
    },
    /** Feeds one stream event; returns what to do now, in order. */
    push(event: MessageStreamEvent): AssemblerAction[] {
      if (ended) return []
      switch (event.type) {
        case 'content_block_start': {
          const actions = release()
          const block = event.content_block
          if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
            open.set(event.index, { id: block.id, name: block.name, json: '', bytes: 0, initialInput: block.input })
          }
          return actions
        }
        case 'content_block_delta': {
          const block = open.get(event.index)
          if (!block || event.delta.type !== 'input_json_delta') return []
          const piece = event.delta.partial_json ?? ''
          block.bytes += Buffer.byteLength(piece)
          // Past the limit the block is refused anyway: keep counting, stop holding the text.
          block.json = block.bytes > maxInputBytes ? '' : block.json + piece
          return []
        }
        case 'content_block_stop':
          return stop(event.index)
        case 'message_delta':
          return event.delta.stop_reason === 'max_tokens' ? finish(true) : release()
        case 'message_stop':
        case 'error':
          return finish(false)
        default:
          return []
      }
    },
    /** A complete block sent directly: whatever was held back is released first. */
    pushBlock(block: ToolUseBlock): AssemblerAction[] {
      return ended ? [] : [...release(), { type: 'run', block }]
    },
    /** The client ended the input (or went away): blocks still open are refused. */
    end(): AssemblerAction[] {
      return ended ? [] : finish(false)
    },
  }
}
