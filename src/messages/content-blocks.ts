/**
 * The Anthropic Messages API blocks toolexec consumes and produces. Result blocks must stay
 * exactly valid `tool_result` blocks (no extra fields) so callers can forward them unchanged.
 * The schemas are the one source: types are inferred, and routes/ only adds OpenAPI metadata.
 */
import { z } from 'zod'

const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() })
type TextBlock = z.infer<typeof TextBlockSchema>

/** The image types the Messages API accepts; anything else would make the next API call fail. */
export const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number]

const ImageBlockSchema = z.object({
  type: z.literal('image'),
  source: z.object({ type: z.literal('base64'), media_type: z.enum(IMAGE_MEDIA_TYPES), data: z.string() }),
})
export type ImageBlock = z.infer<typeof ImageBlockSchema>

/**
 * Loads a deferred tool (`defer_loading: true`) into the model's context: the Messages API expands
 * it into the tool's definition. ToolSearch answers with these, as Claude Code's does.
 */
const ToolReferenceBlockSchema = z.object({ type: z.literal('tool_reference'), tool_name: z.string() })
export type ToolReferenceBlock = z.infer<typeof ToolReferenceBlockSchema>

/** Content a tool_result may carry besides a plain string. */
export type ResultContentBlock = TextBlock | ImageBlock | ToolReferenceBlock

export type ToolResultContent = string | ResultContentBlock[]

export const ToolUseBlockSchema = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1).max(256),
  name: z.string().min(1).max(256),
  input: z.unknown().describe('The tool input; validated against the tool schema when the call runs'),
})
export type ToolUseBlock = z.infer<typeof ToolUseBlockSchema>

export const ToolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([
    z.string(),
    z.array(z.discriminatedUnion('type', [TextBlockSchema, ImageBlockSchema, ToolReferenceBlockSchema])),
  ]),
  is_error: z.literal(true).optional(),
})
export type ToolResultBlock = z.infer<typeof ToolResultBlockSchema>

/** The assistant message whose tool_use blocks a run executes (synthesised for bare batches). */
export type AssistantMessage = {
  role: 'assistant'
  content: ReadonlyArray<{ type: string; [key: string]: unknown }>
  stop_reason?: string | null
}

export function toolResult(toolUseId: string, content: ToolResultContent, isError = false): ToolResultBlock {
  return isError
    ? { type: 'tool_result', tool_use_id: toolUseId, content, is_error: true }
    : { type: 'tool_result', tool_use_id: toolUseId, content }
}

/** Length in characters of a result's content, as the size budget counts it. */
export function contentLength(content: ToolResultContent): number {
  if (typeof content === 'string') return content.length
  let total = 0
  for (const block of content) total += block.type === 'text' ? block.text.length : 0
  return total
}

export function hasImageBlock(content: ToolResultContent): boolean {
  return typeof content !== 'string' && content.some((block) => block.type === 'image')
}
