import { type HookRunner, NO_HOOKS } from '../executor/hook-runner.js'
import type { Logger } from '../logging/logger.js'
import type { AnyTool, ToolUseContext } from '../tool/tool.js'
import { combinePostToolUseVerdicts, combinePreToolUseVerdicts } from './combine-hook-verdicts.js'
import { compileHookMatcher } from './hook-matcher.js'
import type { HookVerdict } from './hook-output.js'
import type { HookRun } from './hook-run.js'
import type { HookDefinition, HookEventName, HooksConfig } from './hooks-config-schema.js'
import { runCommandHook } from './run-command-hook.js'
import { runHttpHook } from './run-http-hook.js'

export type HookRunnerOptions = {
  /** Hook failures are logged here, never thrown. */
  logger?: Logger
  /** Told of each failed hook run (the `toolexec_hook_failures_total` counter). */
  onFailure?: (event: HookEventName) => void
  /** For hooks without their own `timeout` (seconds in settings); default 60,000 ms. */
  defaultTimeoutMs?: number
  /** Environment of command hooks and of HTTP header interpolation; default `process.env`. */
  env?: NodeJS.ProcessEnv
  /** Where `${secret:NAME}` in HTTP hooks' headers is looked up, at each send (docs/adr/0332). */
  resolveSecret?: (name: string) => Promise<string>
}

type Input = { [key: string]: unknown }
type Group = { matches: (toolName: string) => boolean; hooks: readonly HookDefinition[] }
type Extra = { tool_response?: unknown; error?: string }

const DEFAULT_HOOK_TIMEOUT_MS = 60_000

/** The model's text: the hook's own command or URL stays in the log, not in the result. */
function failedClosedReason(error: string): string {
  return `A PreToolUse hook failed (${error.slice(0, 300)}), and a failing PreToolUse hook denies the call (fail-closed). The operator can set "onError": "allow" on that hook to let calls run when it fails.`
}

function describeHook(hook: HookDefinition): string {
  return hook.type === 'command' ? `command: ${hook.command.slice(0, 200)}` : `http: ${hook.url}`
}

function payloadOf(event: HookEventName, tool: AnyTool, input: Input, context: ToolUseContext, extra: Extra): string {
  const body = {
    hook_event_name: event,
    session_id: context.sessionId,
    cwd: context.cwd,
    permission_mode: context.permissionContext.mode,
    tool_name: tool.name,
    tool_input: input,
    tool_use_id: context.toolUseId,
    ...extra,
  }
  try {
    return JSON.stringify(body)
  } catch {
    // A tool response that is not JSON (cycles, BigInt) is sent as its string form.
    return JSON.stringify({ ...body, tool_response: String(extra.tool_response) })
  }
}

/**
 * Builds the HookRunner the executor calls from the `hooks` section of the settings file.
 * Hooks whose matcher fits the tool name run in parallel (command hooks with `sh -c`, HTTP
 * hooks with a POST), each under its own timeout; their verdicts are combined in config order.
 * A failing hook is logged; a failing PreToolUse hook denies the call unless its entry says
 * `"onError": "allow"` (docs/adr/0124-pre-tool-use-hooks-fail-closed.md), other events go on.
 */
export function createHookRunner(config: HooksConfig | undefined, options: HookRunnerOptions = {}): HookRunner {
  const defaultTimeoutMs = options.defaultTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS
  if (!Number.isFinite(defaultTimeoutMs) || defaultTimeoutMs <= 0) {
    throw new TypeError('createHookRunner: `defaultTimeoutMs` must be a positive number')
  }
  // The secret store's key is no hook's business: a hook fed a tenant's input must not reach it (docs/adr/0335).
  const { TOOLEXEC_SECRET_KEY: _secretKey, ...env } = options.env ?? process.env
  const compile = (event: HookEventName): Group[] =>
    (config?.[event] ?? []).map((group) => ({ matches: compileHookMatcher(group.matcher), hooks: group.hooks }))
  const groups: Record<HookEventName, Group[]> = {
    PreToolUse: compile('PreToolUse'),
    PostToolUse: compile('PostToolUse'),
    PostToolUseFailure: compile('PostToolUseFailure'),
  }
  // Nothing configured: the engine skips its hook stages entirely for NO_HOOKS.
  if (Object.values(groups).every((list) => list.length === 0)) return NO_HOOKS

  async function run(event: HookEventName, tool: AnyTool, input: Input, context: ToolUseContext, extra: Extra) {
    const hooks = groups[event].filter((group) => group.matches(tool.name)).flatMap((group) => group.hooks)
    if (hooks.length === 0) return []
    const payload = payloadOf(event, tool, input, context, extra)
    const hookEnv = { ...env, CLAUDE_PROJECT_DIR: context.cwd }
    const runs = await Promise.all(
      hooks.map((hook): Promise<HookRun> => {
        const timeoutMs = hook.timeout === undefined ? defaultTimeoutMs : hook.timeout * 1000
        const runOptions = {
          event,
          payload,
          cwd: context.cwd,
          timeoutMs,
          signal: context.abortSignal,
          env: hookEnv,
          ...(options.resolveSecret ? { resolveSecret: options.resolveSecret } : {}),
        }
        return hook.type === 'command' ? runCommandHook(hook.command, runOptions) : runHttpHook(hook, runOptions)
      }),
    )
    return runs.flatMap((result, index): HookVerdict[] => {
      if (result.ok) return [result.verdict]
      const hook = hooks[index] as HookDefinition
      const details = {
        event,
        tool: tool.name,
        toolUseId: context.toolUseId,
        hook: describeHook(hook),
        error: result.error,
      }
      if (event === 'PreToolUse' && hook.onError !== 'allow') {
        options.logger?.warn(details, 'PreToolUse hook failed; failing closed: the call is denied')
        return [{ permissionDecision: 'deny', reason: failedClosedReason(result.error) }]
      }
      options.logger?.warn(details, 'hook failed (non-blocking); the call continues')
      options.onFailure?.(event)
      return []
    })
  }

  return {
    preToolUse: async (tool, input, context) =>
      combinePreToolUseVerdicts(await run('PreToolUse', tool, input, context, {})),
    postToolUse: async (tool, input, response, context) =>
      combinePostToolUseVerdicts(await run('PostToolUse', tool, input, context, { tool_response: response })),
    postToolUseFailure: async (tool, input, error, context) =>
      combinePostToolUseVerdicts(await run('PostToolUseFailure', tool, input, context, { error })),
  }
}
