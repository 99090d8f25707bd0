import type { PermissionPassthrough } from './permission-result.js'
import type { AnyObjectSchema, MappedToolResult, RuleFamily, Tool, ToolProgressData } from './tool.js'

/** Keys a definition may leave out; `buildTool` fills them with fail-closed defaults. */
type DefaultableToolKeys =
  | 'isEnabled'
  | 'isConcurrencySafe'
  | 'isReadOnly'
  | 'isDestructive'
  | 'checkPermissions'
  | 'userFacingName'
  | 'mapToolResult'

/** Keys a definition may give as a plain string; `buildTool` turns them into functions. */
type TextKeys = 'description' | 'prompt'

export type ToolDef<
  Input extends AnyObjectSchema = AnyObjectSchema,
  Output = unknown,
  P extends ToolProgressData = ToolProgressData,
> = Omit<Tool<Input, Output, P>, DefaultableToolKeys | TextKeys> &
  Partial<Pick<Tool<Input, Output, P>, DefaultableToolKeys>> & {
    [K in TextKeys]: string | Tool<Input, Output, P>[K]
  }

// biome-ignore lint/suspicious/noExplicitAny: the constraint must accept every input schema
type AnyToolDef = ToolDef<any, any, any>

type ToolDefaults = typeof TOOL_DEFAULTS

/** The built tool's type mirrors the runtime spread: the definition's members win, defaults fill in. */
export type BuiltTool<D extends AnyToolDef> = Omit<D, DefaultableToolKeys | TextKeys> & {
  [K in DefaultableToolKeys]-?: K extends keyof D ? (undefined extends D[K] ? ToolDefaults[K] : D[K]) : ToolDefaults[K]
} & {
  [K in TextKeys]: D[K] extends string ? () => Promise<string> : D[K]
}

/**
 * For tools whose calls the general rules must judge from scratch — the shell, the file tools,
 * MCP tools: no opinion of their own, so with no rule a read-only call inside the working
 * directories is allowed and anything else asks.
 */
export const deferToPermissionRules = async (): Promise<PermissionPassthrough> => ({
  behavior: 'passthrough',
  message: '',
})

const RULE_FAMILIES: readonly RuleFamily[] = ['read', 'edit', 'shell', 'none']

export class ToolDefinitionError extends Error {
  override name = 'ToolDefinitionError'
}

/** Plain strings and block arrays pass through; anything else is shown to the model as JSON. */
function defaultMapToolResult(data: unknown): MappedToolResult {
  if (typeof data === 'string') return { content: data }
  if (Array.isArray(data) && data.every((block) => block && typeof block === 'object' && 'type' in block)) {
    return { content: data }
  }
  if (data === undefined || data === null) return { content: '' }
  return { content: JSON.stringify(data) }
}

const TOOL_DEFAULTS = {
  isEnabled: () => true,
  // Conservative: a tool runs alone until its author says parallel runs are safe.
  isConcurrencySafe: (_input?: unknown) => false,
  isReadOnly: (_input?: unknown) => false,
  isDestructive: (_input?: unknown) => false,
  // Nothing of its own to object to: the general rules still apply first (deny and ask rules win).
  checkPermissions: (input: { [key: string]: unknown }) =>
    Promise.resolve({ behavior: 'allow' as const, updatedInput: input }),
  userFacingName: (_input?: unknown) => '',
  mapToolResult: (data: unknown, _toolUseId?: string) => defaultMapToolResult(data),
}

/**
 * Fills a tool definition's missing members with fail-closed defaults: enabled, NOT
 * concurrency-safe, NOT read-only, not destructive, and no objection of its own in
 * `checkPermissions` (allow: the general permission rules still decide first).
 * `description` and `prompt` may be plain strings when they never change.
 * A definition without a name, input schema or rule family is rejected here, not on its first call.
 */
export function buildTool<
  Input extends AnyObjectSchema,
  Output,
  P extends ToolProgressData,
  const D extends ToolDef<Input, Output, P>,
>(definition: D & ToolDef<Input, Output, P>): BuiltTool<D> {
  if (typeof definition?.name !== 'string' || definition.name.trim() === '') {
    throw new ToolDefinitionError('buildTool: `name` must be a non-empty string')
  }
  const schema = definition.inputSchema as { safeParse?: unknown } | undefined
  if (!schema || typeof schema.safeParse !== 'function') {
    throw new ToolDefinitionError(`buildTool(${definition.name}): \`inputSchema\` must be a zod schema`)
  }
  if (typeof definition.call !== 'function') {
    throw new ToolDefinitionError(`buildTool(${definition.name}): \`call\` must be a function`)
  }
  if (!RULE_FAMILIES.includes(definition.ruleFamily)) {
    throw new ToolDefinitionError(
      `buildTool(${definition.name}): \`ruleFamily\` must be read, edit, shell or none (the permission rules that reach it)`,
    )
  }
  return {
    ...TOOL_DEFAULTS,
    userFacingName: () => definition.name,
    ...definition,
    description: textFunction(definition.description),
    prompt: textFunction(definition.prompt),
  } as unknown as BuiltTool<D>
}

/** A constant text becomes the async function the Tool contract asks for; a function stays. */
function textFunction<F>(text: string | F): F | (() => Promise<string>) {
  return typeof text === 'string' ? async () => text : text
}
