import { isDeepStrictEqual } from 'node:util'
import type { CallToolResult, ContentBlock, EmbeddedResource, ResourceLink } from '@modelcontextprotocol/client'
import { IMAGE_MEDIA_TYPES, type ImageMediaType, type ResultContentBlock } from '../../messages/content-blocks.js'
import type { MappedToolResult } from '../../tool/tool.js'

const isApiImageType = (mimeType: string | undefined): mimeType is ImageMediaType =>
  (IMAGE_MEDIA_TYPES as readonly (string | undefined)[]).includes(mimeType)

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding)
}

const text = (value: string): ResultContentBlock => ({ type: 'text', text: value })

function image(data: string, mimeType: ImageMediaType): ResultContentBlock {
  return { type: 'image', source: { type: 'base64', media_type: mimeType, data } }
}

function describeLink(link: ResourceLink): string {
  const lines = [`[Resource link: ${link.title ?? link.name}]`, `URI: ${link.uri}`]
  if (link.mimeType) lines.push(`MIME type: ${link.mimeType}`)
  if (link.size !== undefined) lines.push(`Size: ${link.size} bytes`)
  if (link.description) lines.push(`Description: ${link.description}`)
  return lines.join('\n')
}

function mapEmbedded(block: EmbeddedResource): ResultContentBlock[] {
  const resource = block.resource
  const label = `[Resource: ${resource.uri}${resource.mimeType ? ` (${resource.mimeType})` : ''}]`
  if ('text' in resource) return [text(`${label}\n${resource.text}`)]
  if (isApiImageType(resource.mimeType)) {
    return [text(label), image(resource.blob, resource.mimeType)]
  }
  return [text(`${label}\nBinary content, ${base64Bytes(resource.blob)} bytes, not shown.`)]
}

function mapBlock(block: ContentBlock): ResultContentBlock[] {
  switch (block.type) {
    case 'text':
      return [text(block.text)]
    case 'image':
      if (isApiImageType(block.mimeType)) return [image(block.data, block.mimeType)]
      return [text(`[Image (${block.mimeType}), ${base64Bytes(block.data)} bytes: not shown, unsupported image type]`)]
    case 'audio':
      return [text(`[Audio (${block.mimeType}), ${base64Bytes(block.data)} bytes: not shown, audio is not supported]`)]
    case 'resource_link':
      return [text(describeLink(block))]
    case 'resource':
      return mapEmbedded(block)
    default:
      return [text(JSON.stringify(block))]
  }
}

function parsesTo(candidate: string, value: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(candidate), value)
  } catch {
    return false
  }
}

function leaves(value: unknown, into: unknown[]): unknown[] {
  if (value === null || typeof value !== 'object') into.push(value)
  else if (value !== null && typeof value === 'object') for (const child of Object.values(value)) leaves(child, into)
  return into
}

/**
 * Whether the text blocks already tell the model what `structuredContent` holds: one of them is
 * its JSON (what the MCP spec asks servers to send), or every value in it is a string that
 * appears in the text (servers like server-filesystem wrap their text as `{ content: text }`).
 * Numbers are too easily found by accident to count. Sending it twice would only double the result.
 */
function carriesStructured(blocks: readonly ResultContentBlock[], structured: unknown): boolean {
  const texts = blocks.flatMap((block) => (block.type === 'text' ? [block.text] : []))
  if (texts.some((candidate) => parsesTo(candidate, structured))) return true
  const values = leaves(structured, [])
  if (values.length === 0) return blocks.length > 0
  // Past a few hundred values the substring test costs more than it saves.
  if (values.length > 200) return false
  const joined = texts.join('\n')
  return values.every((value) => typeof value === 'string' && joined.includes(value))
}

/**
 * An MCP `tools/call` result as tool_result content: text and supported images pass through,
 * links, embedded resources, audio and unsupported images become text a model can read, and
 * `structuredContent` is appended as JSON unless a text block already carries it. A single
 * text block collapses to a plain string.
 */
export function mapMcpResult(result: CallToolResult, toolName: string): MappedToolResult {
  const blocks = (result.content ?? []).flatMap(mapBlock)
  const structured = result.structuredContent
  if (structured !== undefined) {
    if (!carriesStructured(blocks, structured)) blocks.push(text(JSON.stringify(structured)))
  }
  const isError = result.isError === true
  if (blocks.length === 0) {
    return isError ? { content: `${toolName} reported an error without any details`, isError } : { content: '' }
  }
  const content = blocks.length === 1 && blocks[0]?.type === 'text' ? blocks[0].text : blocks
  return isError ? { content, isError } : { content }
}
