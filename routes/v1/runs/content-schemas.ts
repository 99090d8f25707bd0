import { z } from 'zod'
import { ToolResultBlockSchema, ToolUseBlockSchema } from '../../../src/messages/content-blocks.js'

// Registered, not copied with .meta(): the run-event schema in src/events holds this very instance,
// so the OpenAPI document refers to one ToolResultBlock component everywhere.
ToolUseBlockSchema.register(z.globalRegistry, { id: 'ToolUseBlock' })
ToolResultBlockSchema.register(z.globalRegistry, {
  id: 'ToolResultBlock',
  description: 'A Messages API tool_result block; forward it unchanged',
})

export { ToolResultBlockSchema, ToolUseBlockSchema }

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
