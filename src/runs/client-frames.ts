import { z } from 'zod'
import { ApiError } from '../errors/api-error.js'
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

/** What the server answers a bad frame with; the socket stays open. */
export type ErrorFrame = { type: 'error'; code: string; message: string }

export function errorFrame(error: unknown): ErrorFrame {
  if (error instanceof ApiError) return { type: 'error', code: error.code, message: error.message }
  return { type: 'error', code: 'internal_error', message: 'The frame could not be handled; the error is logged' }
}

/** Decodes one WebSocket frame: size first, then JSON, then the schema. Throws ApiError. */
export function decodeFrame<T>(raw: Buffer | ArrayBuffer | Buffer[], schema: z.ZodType<T>, maxBytes: number): T {
  const bytes = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw as ArrayBuffer)
  if (bytes.length > maxBytes) {
    throw new ApiError('frame_too_large', `Frames are limited to ${maxBytes} bytes (TOOLEXEC_MAX_FRAME_BYTES)`)
  }
  let json: unknown
  try {
    json = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw new ApiError('invalid_frame', 'A frame must be one JSON object')
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : ''
    throw new ApiError('invalid_frame', `${where}${issue?.message ?? 'invalid frame'}`)
  }
  return parsed.data
}

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
