import { z } from 'zod'
import type { PermissionAnswer } from './permission-broker.js'

export const RunCancelFrameSchema = z.object({
  type: z.literal('run.cancel'),
  mode: z.enum(['cancel', 'interrupt']).optional(),
})

export const PermissionResponseFrameSchema = z.object({
  type: z.literal('permission.response'),
  request_id: z.string().min(1),
  decision: z.enum(['allow', 'deny']),
  updated_input: z.record(z.string(), z.unknown()).optional(),
  message: z.string().optional(),
  always: z.boolean().optional(),
})

/** Frames any subscriber of a run may send. */
export const ControlFrameSchema = z.discriminatedUnion('type', [RunCancelFrameSchema, PermissionResponseFrameSchema])
export type ControlFrame = z.infer<typeof ControlFrameSchema>

/**
 * The wire's snake_case answer (a `permission.response` frame or the HTTP body) as the broker
 * takes it: the one place this mapping is written (docs/adr/0074-snake-case-at-the-edge.md).
 */
export function permissionAnswerOf(
  wire: {
    decision: 'allow' | 'deny'
    updated_input?: Record<string, unknown> | undefined
    message?: string | undefined
    always?: boolean | undefined
  },
  by: string,
): PermissionAnswer {
  return wire.decision === 'allow'
    ? {
        decision: 'allow',
        by,
        ...(wire.updated_input ? { updatedInput: wire.updated_input } : {}),
        ...(wire.always ? { always: true } : {}),
      }
    : { decision: 'deny', by, ...(wire.message === undefined ? {} : { message: wire.message }) }
}

/** Applies a control frame to its run through the run manager's API; `by`: the answering key's name. */
export async function applyControlFrame(
  frame: ControlFrame,
  by: string,
  target: {
    cancel: (mode: 'cancel' | 'interrupt') => Promise<unknown>
    answer: (requestId: string, answer: PermissionAnswer) => Promise<void>
  },
): Promise<void> {
  if (frame.type === 'run.cancel') {
    await target.cancel(frame.mode ?? 'cancel')
    return
  }
  await target.answer(frame.request_id, permissionAnswerOf(frame, by))
}
