// Runs a built-in tool the way the engine does (workspace and context: test/helpers/tool-context.ts).
import type { AssistantMessage } from '../../src/messages/content-blocks.js'
import type { AnyTool, CanUseToolFn, ToolUseContext } from '../../src/tool/tool.js'

export const allowAll: CanUseToolFn = async () => ({ behavior: 'allow' })

export const parentMessage: AssistantMessage = { role: 'assistant', content: [] }

/** Runs validateInput then call, like the engine does, returning the data or the failure text. */
export async function runTool<T extends AnyTool>(
  tool: T,
  rawInput: unknown,
  context: ToolUseContext,
  onProgress?: (data: { [key: string]: unknown }) => void,
): Promise<{ ok: true; data: unknown; context: ToolUseContext } | { ok: false; message: string; error?: unknown }> {
  const parsed = tool.inputSchema.safeParse(rawInput)
  if (!parsed.success) return { ok: false, message: `InputValidationError: ${parsed.error.message}` }
  const validation = (await tool.validateInput?.(parsed.data, context)) ?? { result: true }
  if (!validation.result) return { ok: false, message: validation.message }
  try {
    const result = await tool.call(parsed.data, context, allowAll, parentMessage, onProgress)
    return { ok: true, data: result.data, context: result.contextModifier?.(context) ?? context }
  } catch (error) {
    const parts =
      error instanceof Error ? [error.message, (error as { stdout?: string }).stdout ?? ''] : [String(error)]
    return { ok: false, message: parts.filter(Boolean).join('\n'), error }
  }
}

/** The data of a successful runTool result; fails the test with the message otherwise. */
export function okData<T = never>(result: Awaited<ReturnType<typeof runTool>>): T {
  if (!result.ok) throw new Error(`Expected success, got: ${result.message}`)
  return result.data as T
}
