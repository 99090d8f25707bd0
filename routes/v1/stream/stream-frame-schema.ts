import { z } from 'zod'
import { PermissionResponseFrameSchema, RunCancelFrameSchema } from '../../../src/runs/client-frames.js'
import { ToolUseBlockSchema } from '../runs/content-schemas.js'
import { RunOptionsShape } from '../runs/run-schemas.js'

const index = z.number().int().min(0)
const LooseBlockSchema = z.looseObject({ type: z.string() })

/** Frames a /v1/stream client sends: control frames, tool_use blocks, or raw Messages stream events. */
export const StreamFrameSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run.start'), ...RunOptionsShape }),
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
