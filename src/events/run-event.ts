import { z } from 'zod'
import { ToolResultBlockSchema } from '../messages/content-blocks.js'
import { AskHintsSchema } from './ask-hints.js'

export const RunStatusSchema = z.enum(['running', 'completed', 'cancelled', 'lost'])
export type RunStatus = z.infer<typeof RunStatusSchema>

/**
 * Event bodies as the engine emits them (docs/events.md): the one source of the event shapes.
 * The run layer stamps `seq`, `run_id` and `ts`; routes/ adds only that stamp and OpenAPI metadata.
 */
export const RunEventBodySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('run.started'), tool_use_ids: z.array(z.string()) }),
  z.object({
    type: z.literal('tool.queued'),
    tool_use_id: z.string(),
    name: z.string(),
    input: z.unknown().describe('The input as the block gave it'),
    concurrency_safe: z.boolean(),
  }),
  z.object({ type: z.literal('tool.started'), tool_use_id: z.string() }),
  z.object({ type: z.literal('tool.progress'), tool_use_id: z.string(), data: z.unknown() }),
  z.object({
    type: z.literal('tool.completed'),
    tool_use_id: z.string(),
    is_error: z.boolean(),
    duration_ms: z.number(),
  }),
  z.object({
    type: z.literal('tool.result'),
    tool_use_id: z.string(),
    result: ToolResultBlockSchema,
    blob_id: z.string().optional(),
  }),
  z.object({
    type: z.literal('permission.requested'),
    request_id: z.string(),
    tool_use_id: z.string(),
    tool: z.string(),
    input: z.unknown(),
    message: z.string(),
    /** When the ask is denied unanswered (docs/adr/0241-asks-wait-without-holding-a-slot.md). */
    expires_at: z.string().optional(),
    hints: AskHintsSchema.optional(),
  }),
  z.object({
    type: z.literal('permission.resolved'),
    request_id: z.string(),
    decision: z.enum(['allow', 'deny']),
    /** How the ask ended: an answer, its deadline, the run's cancel, or the call ending without it. */
    reason: z.enum(['answer', 'timeout', 'cancelled', 'withdrawn', 'waiting_bound']).optional(),
    /** The name of the key that answered (never the key). */
    answered_by: z.string().optional(),
    /** "Allow always for this session": the rule that was added to the session. */
    rule_added: z.string().optional(),
  }),
  z.object({
    type: z.literal('run.completed'),
    status: RunStatusSchema.exclude(['running']),
    /** A cancelled run's cause when it was not a client's cancel: the service shut down. */
    cancel_reason: z.literal('shutdown').optional(),
  }),
])
export type RunEventBody = z.infer<typeof RunEventBodySchema>

export type RunEvent = RunEventBody & { seq: number; run_id: string; ts: string }
