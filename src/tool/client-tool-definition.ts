import { z } from 'zod'

/**
 * The Messages API client tools as the API takes them in `tools`: type and name only (plus the
 * text editor's `max_characters`), no description or schema, since the model already knows them
 * (docs/adr/0141-client-tool-definitions.md). Closed shapes, one per version, so the result is
 * assignable to the SDK's `ToolUnion` members without a cast.
 */
export const ClientToolDefinitionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('bash_20250124'), name: z.literal('bash') }),
  z.object({
    type: z.literal('text_editor_20250728'),
    name: z.literal('str_replace_based_edit_tool'),
    max_characters: z.number().int().positive().optional(),
  }),
  z.object({ type: z.literal('text_editor_20250429'), name: z.literal('str_replace_based_edit_tool') }),
  z.object({ type: z.literal('text_editor_20250124'), name: z.literal('str_replace_editor') }),
  z.object({ type: z.literal('memory_20250818'), name: z.literal('memory') }),
])

export type ClientToolDefinition = z.infer<typeof ClientToolDefinitionSchema>
