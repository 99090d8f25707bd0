import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js'
import { serializerCompiler } from 'fastify-type-provider-zod'
import { RunStatusSchema } from '../../../src/events/run-event.js'
import { IMAGE_MEDIA_TYPES } from '../../../src/messages/content-blocks.js'

type Serialize = (data: unknown) => string
type Json = Record<string, unknown>

const STATUSES = new Set<unknown>(RunStatusSchema.options)
const MEDIA_TYPES = new Set<unknown>(IMAGE_MEDIA_TYPES)
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null
const text = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value) : undefined)

/**
 * The 200 of `POST /v1/runs` written field by field in RunResultSchema's order, instead of a zod
 * encode of the whole answer and a JSON.stringify of its copy (docs/adr/0429-the-run-result-is-serialised-by-hand.md).
 * It writes exactly what the zod serializer writes; anything it does not recognise goes to
 * `fallback` (the zod serializer), so a malformed answer still fails the way it did.
 */
export function runResultSerializer(fallback: Serialize): Serialize {
  return (data) => writeRunResult(data) ?? fallback(data)
}

/** The route's serializer compiler: this writer for the 200, zod's for every other answer. */
export function runResultSerializerCompiler<S>(route: FastifyRouteSchemaDef<S>): Serialize {
  // fastify types `schema` as the route's whole schema; at run time it is one response's (zod) schema.
  const zod = serializerCompiler(route as unknown as Parameters<typeof serializerCompiler>[0])
  return route.httpStatus === '200' ? runResultSerializer(zod) : zod
}

function writeRunResult(data: unknown): string | undefined {
  if (!isObject(data)) return undefined
  const runId = text(data.run_id)
  const sessionId = text(data.session_id)
  if (runId === undefined || sessionId === undefined || !STATUSES.has(data.status)) return undefined
  const reason = data.cancel_reason
  if (reason !== undefined && reason !== 'shutdown') return undefined
  const results = writeArray(data.results, writeResultBlock)
  const message = data.message
  if (results === undefined || !isObject(message) || message.role !== 'user') return undefined
  // The message's content is the results array itself (routes/v1/runs/run-views.ts): written once.
  const content = message.content === data.results ? results : writeArray(message.content, writeResultBlock)
  const blobs = writeArray(data.blobs, writeBlob)
  if (content === undefined || blobs === undefined) return undefined
  return `{"run_id":${runId},"status":"${data.status}"${reason === undefined ? '' : ',"cancel_reason":"shutdown"'},"session_id":${sessionId},"results":${results},"message":{"role":"user","content":${content}},"blobs":${blobs}}`
}

function writeArray(value: unknown, write: (item: unknown) => string | undefined): string | undefined {
  if (!Array.isArray(value)) return undefined
  let out = '['
  for (let index = 0; index < value.length; index++) {
    const item = write(value[index])
    if (item === undefined) return undefined
    out += index === 0 ? item : `,${item}`
  }
  return `${out}]`
}

function writeResultBlock(block: unknown): string | undefined {
  if (!isObject(block) || block.type !== 'tool_result') return undefined
  const id = text(block.tool_use_id)
  const content =
    typeof block.content === 'string' ? JSON.stringify(block.content) : writeArray(block.content, writePart)
  if (id === undefined || content === undefined) return undefined
  if (block.is_error !== undefined && block.is_error !== true) return undefined
  return `{"type":"tool_result","tool_use_id":${id},"content":${content}${block.is_error ? ',"is_error":true' : ''}}`
}

/** One block of a result's content: text, image or tool_reference, as content-blocks.ts has them. */
function writePart(part: unknown): string | undefined {
  if (!isObject(part)) return undefined
  if (part.type === 'text') {
    const body = text(part.text)
    return body === undefined ? undefined : `{"type":"text","text":${body}}`
  }
  if (part.type === 'tool_reference') {
    const name = text(part.tool_name)
    return name === undefined ? undefined : `{"type":"tool_reference","tool_name":${name}}`
  }
  if (part.type !== 'image' || !isObject(part.source)) return undefined
  const { source } = part
  const data = text(source.data)
  if (source.type !== 'base64' || !MEDIA_TYPES.has(source.media_type) || data === undefined) return undefined
  return `{"type":"image","source":{"type":"base64","media_type":"${source.media_type}","data":${data}}}`
}

function writeBlob(blob: unknown): string | undefined {
  if (!isObject(blob)) return undefined
  const id = text(blob.tool_use_id)
  const blobId = text(blob.blob_id)
  const url = text(blob.url)
  if (id === undefined || blobId === undefined || url === undefined || !Number.isSafeInteger(blob.size))
    return undefined
  return `{"tool_use_id":${id},"blob_id":${blobId},"url":${url},"size":${blob.size}}`
}
