import { z } from 'zod'
import { AskHintsSchema } from '../../../src/events/ask-hints.js'
import { RunStatusSchema } from '../../../src/events/run-event.js'
import { RunRequestOptionsShape } from '../../../src/runs/run-request.js'
import {
  CANCEL_RUN_EXAMPLES,
  CREATE_RUN_EXAMPLES,
  PERMISSION_ANSWER_EXAMPLES,
  RUN_ACCEPTED_EXAMPLES,
  RUN_EXAMPLES,
  RUN_RESULT_EXAMPLES,
} from '../../openapi-examples.js'
import { AssistantMessageSchema, ToolResultBlockSchema, ToolUseBlockSchema } from './content-schemas.js'

/** Options shared by POST /v1/runs and the `run.start` frame of /v1/stream. */
const RunOptionsShape = {
  session_id: z.string().min(1).optional().describe('Run in this session; omitted: a fresh session of defaults'),
  ...RunRequestOptionsShape,
}

export const CreateRunBodySchema = z
  .strictObject({
    tool_uses: z.array(ToolUseBlockSchema).optional(),
    message: AssistantMessageSchema.optional(),
    wait: z.boolean().default(true).describe('Answer when the run is over (200) or at once (202)'),
    ...RunOptionsShape,
  })
  // No component id: openapi-typescript keeps a defaulted field optional only inline in a request
  // body, so `wait` stays optional for clients generated with its default options (docs/adr/0131-one-component-per-schema.md).
  .meta({ description: 'Send exactly one of `tool_uses` or `message`', examples: CREATE_RUN_EXAMPLES })

export const IdempotencyHeadersSchema = z.object({
  'idempotency-key': z.string().min(1).max(255).optional().describe('Retry-safe key: same key and body, same run'),
})

const BlobReferenceSchema = z
  .object({ tool_use_id: z.string(), blob_id: z.string(), url: z.string(), size: z.number().int() })
  .meta({ id: 'BlobReference' })

const UserMessageSchema = z
  .object({ role: z.literal('user'), content: z.array(ToolResultBlockSchema) })
  .meta({ id: 'UserMessage', description: 'The user message to append to the conversation, as it is' })

const PermissionRequestSchema = z
  .object({
    request_id: z.string(),
    tool_use_id: z.string(),
    tool: z.string(),
    input: z.unknown().describe('The input the call would run with'),
    message: z.string(),
    expires_at: z.string().optional().describe('When it is denied unanswered'),
    hints: AskHintsSchema.optional(),
  })
  .meta({
    id: 'PermissionRequest',
    description: 'An open permission ask; answer it with POST /v1/runs/{run_id}/permissions/{request_id}',
  })

/** Present when a cancelled run was stopped by the service shutting down, not by a client. */
const CancelReasonSchema = z
  .literal('shutdown')
  .optional()
  .describe('Why a cancelled run stopped when no client cancelled it: `shutdown`, the service stopped (docs/adr/0288)')

export const RunResultSchema = z
  .object({
    run_id: z.string(),
    status: RunStatusSchema,
    cancel_reason: CancelReasonSchema,
    session_id: z.string(),
    results: z.array(ToolResultBlockSchema).describe('One per tool_use block, in block order'),
    message: UserMessageSchema,
    blobs: z.array(BlobReferenceSchema),
  })
  .meta({ id: 'RunResult', examples: RUN_RESULT_EXAMPLES })

export const RunAcceptedSchema = z
  .object({ run_id: z.string(), status: RunStatusSchema, events_url: z.string() })
  .meta({ id: 'RunAccepted', examples: RUN_ACCEPTED_EXAMPLES })

export const RunSchema = z
  .object({
    run_id: z.string(),
    status: RunStatusSchema,
    cancel_reason: CancelReasonSchema,
    session_id: z.string(),
    tool_use_ids: z.array(z.string()),
    results: z.array(ToolResultBlockSchema).describe('Results so far, in block order'),
    message: UserMessageSchema.optional().describe('Once the run is over: the same message as the wait: true response'),
    permission_requests: z
      .array(PermissionRequestSchema)
      .describe('Asks waiting for an answer (the permission.requested events not yet resolved)'),
    resolved_permissions: z
      .array(
        z.object({
          request_id: z.string(),
          decision: z.enum(['allow', 'deny']),
          reason: z.string().optional(),
          answered_by: z.string().optional().describe('The name of the key that answered'),
          rule_added: z.string().optional(),
        }),
      )
      .describe('Asks that ended, in order: how, and which key answered'),
    blobs: z.array(BlobReferenceSchema),
    created_at: z.string(),
    finished_at: z.string().optional(),
    events_url: z.string(),
  })
  .meta({ id: 'Run', examples: RUN_EXAMPLES })

export const RunParamsSchema = z.object({ run_id: z.string().min(1) })

// Nullish: a POST without a body arrives as null.
export const CancelRunBodySchema = z
  .strictObject({
    mode: z
      .enum(['cancel', 'interrupt'])
      .optional()
      .describe('interrupt: running calls that block finish (default cancel)'),
  })
  .nullish()
  .meta({ examples: CANCEL_RUN_EXAMPLES })

export const CancelRunResponseSchema = z
  .object({ run_id: z.string(), status: RunStatusSchema, cancel_requested: z.boolean() })
  .meta({ id: 'CancelRunResponse' })

export const PermissionAnswerBodySchema = z
  .strictObject({
    decision: z.enum(['allow', 'deny']),
    updated_input: z.record(z.string(), z.unknown()).optional().describe('allow only: the input to run instead'),
    message: z.string().optional().describe('deny only: becomes the result text'),
    always: z
      .boolean()
      .optional()
      .describe(
        "allow only: also allow this call from now on in the run's session (the rule added is in permission.resolved)",
      ),
  })
  .meta({ id: 'PermissionAnswer', examples: PERMISSION_ANSWER_EXAMPLES })
