import { z } from 'zod'

/** Messages API blocks, exactly: response serialisation strips anything the API would reject. */
export const ToolUseBlockSchema = z
  .object({
    type: z.literal('tool_use'),
    id: z.string().min(1).max(256),
    name: z.string().min(1).max(256),
    input: z.unknown().describe('The tool input; validated against the tool schema when the call runs'),
  })
  .meta({ id: 'ToolUseBlock' })

const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() })
const ImageBlockSchema = z.object({
  type: z.literal('image'),
  source: z.object({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
})

export const ToolResultBlockSchema = z
  .object({
    type: z.literal('tool_result'),
    tool_use_id: z.string(),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [TextBlockSchema, ImageBlockSchema]))]),
    is_error: z.literal(true).optional(),
  })
  .meta({ id: 'ToolResultBlock', description: 'A Messages API tool_result block; forward it unchanged' })

/** Assistant content: tool_use blocks are checked; other blocks (text, thinking, …) pass through. */
const ContentBlockSchema = z.looseObject({ type: z.string() }).superRefine((block, context) => {
  if (block.type !== 'tool_use') return
  const parsed = ToolUseBlockSchema.safeParse(block)
  for (const issue of parsed.error?.issues ?? [])
    context.addIssue({ code: 'custom', message: issue.message, path: issue.path })
})

export const AssistantMessageSchema = z
  .object({
    role: z.literal('assistant'),
    content: z.array(ContentBlockSchema),
    stop_reason: z.string().nullable().optional(),
  })
  .meta({ id: 'AssistantMessage' })
