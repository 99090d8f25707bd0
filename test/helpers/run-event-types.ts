// The run-event types as the schema in src/events declares them (in the order a run emits them),
// so tests never keep a copy of the list.
import { type RunEventBody, RunEventBodySchema } from '../../src/events/run-event.js'

export const RUN_EVENT_TYPES: RunEventBody['type'][] = RunEventBodySchema.options.map((body) => body.shape.type.value)

/** Every type a run without permission prompts emits, in order. */
export const RUN_EVENT_TYPES_WITHOUT_PERMISSIONS = RUN_EVENT_TYPES.filter((type) => !type.startsWith('permission.'))
