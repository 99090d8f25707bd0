import { z } from 'zod'
import { hookMatcherError } from './hook-matcher.js'

/** Seconds, like Claude Code's settings; the runner's default is 60. */
const TimeoutSchema = z.number().positive().max(3600).optional()

/**
 * What a PreToolUse hook that fails (times out, crashes, answers garbage) means: `deny` (the
 * default: a policy hook that hangs must not be bypassed) or `allow` (the call goes on as if the
 * hook had no opinion). Post hooks never block, so it does not apply to them
 * (docs/adr/0124-pre-tool-use-hooks-fail-closed.md).
 */
const OnErrorSchema = z.enum(['deny', 'allow']).optional()

const CommandHookSchema = z.strictObject({
  type: z.literal('command'),
  /** Run with `sh -c` in the session cwd; the event JSON arrives on stdin. */
  command: z.string().min(1),
  timeout: TimeoutSchema,
  onError: OnErrorSchema,
})

const HttpHookSchema = z.strictObject({
  type: z.literal('http'),
  url: z.url({ protocol: /^https?$/ }),
  /** `$NAME` / `${NAME}` in values are replaced for names listed in `allowedEnvVars` only. */
  headers: z.record(z.string(), z.string()).optional(),
  allowedEnvVars: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional(),
  timeout: TimeoutSchema,
  onError: OnErrorSchema,
})
export type HttpHook = z.infer<typeof HttpHookSchema>

const HookDefinitionSchema = z.discriminatedUnion('type', [CommandHookSchema, HttpHookSchema])
export type HookDefinition = z.infer<typeof HookDefinitionSchema>

const HookMatcherSchema = z.strictObject({
  matcher: z
    .string()
    .optional()
    .superRefine((matcher, context) => {
      const error = matcher === undefined ? undefined : hookMatcherError(matcher)
      if (error) context.addIssue({ code: 'custom', message: error })
    }),
  hooks: z.array(HookDefinitionSchema),
})

const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'PostToolUseFailure'] as const
export type HookEventName = (typeof HOOK_EVENTS)[number]

/** The `hooks` section of the settings file: per event, matcher groups in config order. */
export const HooksConfigSchema = z.strictObject({
  PreToolUse: z.array(HookMatcherSchema).optional(),
  PostToolUse: z.array(HookMatcherSchema).optional(),
  PostToolUseFailure: z.array(HookMatcherSchema).optional(),
})
export type HooksConfig = z.infer<typeof HooksConfigSchema>
