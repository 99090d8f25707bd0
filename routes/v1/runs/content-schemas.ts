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

/**
 * One block of the assistant message: tool_use blocks are checked; text, thinking,
 * server_tool_use and any block the API adds later pass through unchanged. The document states
 * the block as an open object without `additionalProperties: {}` (the same thing in JSON Schema),
 * so generated types carry no index signature and the SDK's block interfaces are assignable
 * (docs/adr/0130-assistant-blocks-as-open-objects.md).
 */
const ContentBlockSchema = z
  .looseObject({ type: z.string().describe('text, thinking, tool_use, server_tool_use, …') })
  .superRefine((block, context) => {
    if (block.type !== 'tool_use') return
    const parsed = ToolUseBlockSchema.safeParse(block)
    // Passed on as they are, so a missing field reads as one (src/errors/request-issues.ts).
    for (const issue of parsed.error?.issues ?? []) context.addIssue({ ...issue })
  })
  .meta({ id: 'AssistantContentBlock', additionalProperties: undefined })

/** An assistant message as the Messages API returns it (`Anthropic.Message`); extra fields are ignored. */
export const AssistantMessageSchema = z
  .object({
    role: z.literal('assistant'),
    content: z.array(ContentBlockSchema),
    stop_reason: z.string().nullable().optional(),
  })
  .meta({ id: 'AssistantMessage' })
