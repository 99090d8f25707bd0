import { z } from 'zod'
import { ToolUseBlockSchema } from '../../messages/content-blocks.js'
import { PermissionResponseFrameSchema, RunCancelFrameSchema } from '../control/control-frame.js'
import { RunRequestOptionsShape } from '../run-request.js'

const index = z.number().int().min(0)
const LooseBlockSchema = z.looseObject({ type: z.string() })

/**
 * Frames a /v1/stream client sends: control frames, tool_use blocks, or raw Messages stream
 * events. The one source of `StreamFrame`, which createStreamInput (stream-input.ts) handles.
 */
export const StreamFrameSchema = z.discriminatedUnion('type', [
  // Strict, as the body of POST /v1/runs is: a misspelt option is an error, not a silent default.
  z.strictObject({ type: z.literal('run.start'), session_id: z.string().min(1).optional(), ...RunRequestOptionsShape }),
  z.object({ type: z.literal('tool_use'), tool_use: ToolUseBlockSchema }),
  z.object({ type: z.literal('input.end') }),
  RunCancelFrameSchema,
  PermissionResponseFrameSchema,
  z.looseObject({ type: z.literal('message_start') }),
  z.looseObject({ type: z.literal('content_block_start'), index, content_block: LooseBlockSchema }),
  z.looseObject({
    type: z.literal('content_block_delta'),
    index,
    delta: z.looseObject({ type: z.string(), partial_json: z.string().optional() }),
  }),
  z.looseObject({ type: z.literal('content_block_stop'), index }),
  z.looseObject({
    type: z.literal('message_delta'),
    delta: z.looseObject({ stop_reason: z.string().nullable().optional() }),
  }),
  z.looseObject({ type: z.literal('message_stop') }),
  z.looseObject({ type: z.literal('ping') }),
  z.looseObject({ type: z.literal('error') }),
])

/** Every frame a /v1/stream client may send, already decoded. */
export type StreamFrame = z.infer<typeof StreamFrameSchema>
