import type { z } from 'zod'
import { ApiError } from '../../src/errors/api-error.js'

/** A WebSocket message as `ws` hands it over. */
export type RawFrame = Buffer | ArrayBuffer | Buffer[]

/** What the server answers a bad frame with; the socket stays open. */
export type ErrorFrame = { type: 'error'; code: string; message: string }

export function errorFrame(error: unknown): ErrorFrame {
  if (error instanceof ApiError) return { type: 'error', code: error.code, message: error.message }
  return { type: 'error', code: 'internal_error', message: 'The frame could not be handled; the error is logged' }
}

/** Decodes one WebSocket frame: size first, then JSON, then the schema. Throws ApiError. */
export function decodeFrame<T>(raw: RawFrame, schema: z.ZodType<T>, maxBytes: number): T {
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
