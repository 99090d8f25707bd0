import { z } from 'zod'
import { RunEventBodySchema } from '../../../src/events/run-event.js'
import './content-schemas.js'

const stamp = { seq: z.number().int().min(1), run_id: z.string(), ts: z.string() }
// `type` first, then the stamp, then the body: the order the OpenAPI document has always listed.
const [first, ...rest] = RunEventBodySchema.options.map(({ shape: { type, ...fields } }) =>
  z.object({ type, ...stamp, ...fields }),
)

/** The events of docs/events.md, for the OpenAPI document and the clients generated from it. */
export const RunEventSchema = z
  .discriminatedUnion('type', [first!, ...rest])
  .meta({ id: 'RunEvent', description: 'One run event; each SSE `data:` line and WebSocket frame is one of these' })
