import { z } from 'zod'
import type { RunEvent } from '../../../src/events/run-event.js'
import { ToolResultBlockSchema } from './content-schemas.js'

const stamp = { seq: z.number().int().min(1), run_id: z.string(), ts: z.string() }
const event = <T extends string, S extends z.ZodRawShape>(type: T, shape: S) =>
  z.object({ type: z.literal(type), ...stamp, ...shape })

/** The events of docs/events.md, for the OpenAPI document and the clients generated from it. */
export const RunEventSchema = z
  .discriminatedUnion('type', [
    event('run.started', { tool_use_ids: z.array(z.string()) }),
    event('tool.queued', { tool_use_id: z.string(), name: z.string(), concurrency_safe: z.boolean() }),
    event('tool.started', { tool_use_id: z.string() }),
    event('tool.progress', { tool_use_id: z.string(), data: z.unknown() }),
    event('tool.completed', { tool_use_id: z.string(), is_error: z.boolean(), duration_ms: z.number() }),
    event('tool.result', { tool_use_id: z.string(), result: ToolResultBlockSchema, blob_id: z.string().optional() }),
    event('permission.requested', {
      request_id: z.string(),
      tool_use_id: z.string(),
      tool: z.string(),
      input: z.unknown(),
      message: z.string(),
    }),
    event('permission.resolved', { request_id: z.string(), decision: z.enum(['allow', 'deny']) }),
    event('run.completed', { status: z.enum(['completed', 'cancelled']) }),
  ])
  .meta({ id: 'RunEvent', description: 'One run event; each SSE `data:` line and WebSocket frame is one of these' })

// The schema documents the domain type; this line fails to compile if they drift apart.
type SchemaEvent = z.output<typeof RunEventSchema>
export const RUN_EVENT_SCHEMA_MATCHES: [SchemaEvent['type'], RunEvent['type']] extends [
  RunEvent['type'],
  SchemaEvent['type'],
]
  ? true
  : never = true
