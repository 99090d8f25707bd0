import type { z } from 'zod'
import { ApiError } from '../../src/errors/api-error.js'
import { describeIssues, requestIssues } from '../../src/errors/request-issues.js'
import { exceedsJsonDepth, jsonDepthMessage } from '../../src/messages/json-nesting-depth.js'

/** A WebSocket message as `ws` hands it over. */
export type RawFrame = Buffer | ArrayBuffer | Buffer[]

/** What the server answers a bad frame with; the socket stays open. */
export type ErrorFrame = { type: 'error'; code: string; message: string }

export function errorFrame(error: unknown): ErrorFrame {
  if (error instanceof ApiError) return { type: 'error', code: error.code, message: error.message }
  return { type: 'error', code: 'internal_error', message: 'The frame could not be handled; the error is logged' }
}

export type FrameLimits = { maxFrameBytes: number; maxInputDepth: number }

/** Decodes one WebSocket frame: size and depth first, then JSON, then the schema. Throws ApiError. */
export function decodeFrame<T>(raw: RawFrame, schema: z.ZodType<T>, limits: FrameLimits): T {
  const maxBytes = limits.maxFrameBytes
  const bytes = Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw as ArrayBuffer)
  if (bytes.length > maxBytes) {
    throw new ApiError('frame_too_large', `Frames are limited to ${maxBytes} bytes (TOOLEXEC_MAX_FRAME_BYTES)`)
  }
  const text = bytes.toString('utf8')
  if (exceedsJsonDepth(text, limits.maxInputDepth)) {
    throw new ApiError('input_too_deep', jsonDepthMessage('The frame', limits.maxInputDepth))
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new ApiError('invalid_frame', 'A frame must be one JSON object')
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    // The same plain words as an HTTP body gets (src/errors/request-issues.ts).
    const failures = parsed.error.issues.map(({ code, path, message, ...params }) => ({
      keyword: code,
      instancePath: `/${path.join('/')}`,
      message,
      params,
    }))
    const issues = requestIssues('frame', failures, json)
    throw new ApiError('invalid_frame', describeIssues(issues) || 'invalid frame')
  }
  return parsed.data
}
