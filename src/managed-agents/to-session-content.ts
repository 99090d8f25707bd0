import type { ToolResultBlock } from '../messages/content-blocks.js'

/** What `user.tool_result` carries: text and base64 images, as the Managed Agents API takes them. */
export type SessionContentBlock =
  | { type: 'text'; text: string }
  | {
      type: 'image'
      source: { type: 'base64'; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; data: string }
    }

/** The API refuses an empty or whitespace-only text, and a session that met one never recovers (anthropic-sdk-go#377). */
export const NO_OUTPUT_TEXT = '(no output)'

/**
 * A toolexec result as session content: never empty, no empty text block; a tool reference
 * (ToolSearch) is named in a text, the one block the API has no counterpart for.
 */
export function toSessionContent(result: ToolResultBlock): SessionContentBlock[] {
  if (typeof result.content === 'string')
    return [{ type: 'text', text: result.content.trim() === '' ? NO_OUTPUT_TEXT : result.content }]
  const blocks: SessionContentBlock[] = []
  for (const block of result.content) {
    if (block.type === 'image') blocks.push({ type: 'image', source: block.source })
    else if (block.type === 'tool_reference') blocks.push({ type: 'text', text: `Tool loaded: ${block.tool_name}` })
    else if (block.text.trim() !== '') blocks.push({ type: 'text', text: block.text })
  }
  return blocks.length > 0 ? blocks : [{ type: 'text', text: NO_OUTPUT_TEXT }]
}
