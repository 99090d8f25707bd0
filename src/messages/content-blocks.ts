/**
 * The Anthropic Messages API blocks toolexec consumes and produces. Result blocks must stay
 * exactly valid `tool_result` blocks (no extra fields) so callers can forward them unchanged.
 */

export type TextBlock = { type: 'text'; text: string }

export type ImageBlock = {
  type: 'image'
  source: { type: 'base64'; media_type: string; data: string }
}

/** Content a tool_result may carry besides a plain string. */
export type ResultContentBlock = TextBlock | ImageBlock

export type ToolResultContent = string | ResultContentBlock[]

export type ToolUseBlock = {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
}

export type ToolResultBlock = {
  type: 'tool_result'
  tool_use_id: string
  content: ToolResultContent
  is_error?: true
}

/** The assistant message whose tool_use blocks a run executes (synthesised for bare batches). */
export type AssistantMessage = {
  role: 'assistant'
  content: ReadonlyArray<{ type: string; [key: string]: unknown }>
  stop_reason?: string | null
}

export function toolResult(toolUseId: string, content: ToolResultContent, isError = false): ToolResultBlock {
  return isError
    ? { type: 'tool_result', tool_use_id: toolUseId, content, is_error: true }
    : { type: 'tool_result', tool_use_id: toolUseId, content }
}

/** Length in characters of a result's content, as the size budget counts it. */
export function contentLength(content: ToolResultContent): number {
  if (typeof content === 'string') return content.length
  let total = 0
  for (const block of content) total += block.type === 'text' ? block.text.length : 0
  return total
}

export function hasImageBlock(content: ToolResultContent): boolean {
  return typeof content !== 'string' && content.some((block) => block.type === 'image')
}
