import { z } from 'zod'
import { MAX_RULE_LENGTH } from '../../../src/permissions/permission-rule.js'
import { PERMISSION_MODES } from '../../../src/tool/permission-context.js'
import { TEXT_EDITOR_TYPES, TOOLSETS } from '../../../src/tool/toolset.js'
import { CREATE_SESSION_EXAMPLES, PATCH_SESSION_EXAMPLES } from '../../openapi-examples.js'

const ToolsetsSchema = z
  .array(z.enum(TOOLSETS))
  .min(1)
  .max(TOOLSETS.length)
  .describe("The tool sets this session's runs use (default: the operator's, else claude_code)")

const TextEditorSchema = z
  .enum(TEXT_EDITOR_TYPES)
  .describe(
    "The text editor version the anthropic_client tools offer (default: the operator's, else text_editor_20250728); only with that toolset",
  )

const RulesSchema = z.array(z.string().min(1).max(MAX_RULE_LENGTH)).max(1000)

export const CreateSessionBodySchema = z
  .strictObject({
    cwd: z.string().min(1).optional().describe("Working directory, relative to the tenant's workspace"),
    permission_mode: z.enum(PERMISSION_MODES).optional(),
    permissions: z
      .strictObject({ allow: RulesSchema.optional(), deny: RulesSchema.optional(), ask: RulesSchema.optional() })
      .optional()
      .describe("Session rules; they add to the operator's, whose deny rules always win"),
    additional_directories: z.array(z.string().min(1)).max(100).optional(),
    toolsets: ToolsetsSchema.optional(),
    text_editor: TextEditorSchema.optional(),
  })
  .meta({ id: 'CreateSessionRequest', examples: CREATE_SESSION_EXAMPLES })
  .nullish()

export const SessionSchema = z
  .object({
    session_id: z.string(),
    cwd: z.string(),
    permission_mode: z.enum(PERMISSION_MODES),
    permissions: z.object({ allow: z.array(z.string()), deny: z.array(z.string()), ask: z.array(z.string()) }),
    additional_directories: z.array(z.string()),
    toolsets: ToolsetsSchema.optional(),
    text_editor: TextEditorSchema.optional(),
    todos: z.array(
      z.object({
        content: z.string(),
        status: z.enum(['pending', 'in_progress', 'completed']),
        activeForm: z.string().optional(),
      }),
    ),
    files_read: z.number().int().describe('Files Read has recorded (Edit requires reading first)'),
    active_run_id: z.string().optional(),
    created_at: z.string(),
    expires_at: z.string().describe('When the session expires if it stays idle'),
  })
  .meta({ id: 'Session' })

export const SessionParamsSchema = z.object({ session_id: z.string().min(1) })

export const PatchSessionBodySchema = z
  .strictObject({
    permissions: z
      .strictObject({ allow: RulesSchema.optional(), deny: RulesSchema.optional(), ask: RulesSchema.optional() })
      .describe("Each list given replaces the session's own rules of that kind; lists left out stay"),
  })
  .meta({ id: 'PatchSessionRequest', examples: PATCH_SESSION_EXAMPLES })
