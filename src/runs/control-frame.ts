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
})

/** Frames any subscriber of a run may send. */
export const ControlFrameSchema = z.discriminatedUnion('type', [RunCancelFrameSchema, PermissionResponseFrameSchema])
export type ControlFrame = z.infer<typeof ControlFrameSchema>

/** Applies a control frame to its run through the run manager's API. */
export async function applyControlFrame(
  frame: ControlFrame,
  target: {
    cancel: (mode: 'cancel' | 'interrupt') => Promise<unknown>
    answer: (requestId: string, answer: PermissionAnswer) => Promise<void>
  },
): Promise<void> {
  if (frame.type === 'run.cancel') {
    await target.cancel(frame.mode ?? 'cancel')
    return
  }
  await target.answer(
    frame.request_id,
    frame.decision === 'allow'
      ? { decision: 'allow', ...(frame.updated_input ? { updatedInput: frame.updated_input } : {}) }
      : { decision: 'deny', ...(frame.message === undefined ? {} : { message: frame.message }) },
  )
}
