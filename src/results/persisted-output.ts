import { formatFileSize } from './format-file-size.js'

/** Characters of a persisted result the model sees inline. */
export const PREVIEW_LIMIT_CHARS = 2_000

export type Preview = { preview: string; hasMore: boolean }

/**
 * The first `limit` characters, cut back to the last newline when that newline lies in the
 * second half (so the preview ends on a whole line without losing more than half of it).
 */
export function buildPreview(content: string, limit: number = PREVIEW_LIMIT_CHARS): Preview {
  if (content.length <= limit) return { preview: content, hasMore: false }
  const head = content.slice(0, limit)
  const lastNewline = head.lastIndexOf('\n')
  let cut = lastNewline > limit / 2 ? lastNewline : limit
  // Never split a surrogate pair: a lone surrogate is not valid text for the API.
  if (cut === limit && isHighSurrogate(content.charCodeAt(cut - 1))) cut -= 1
  return { preview: content.slice(0, cut), hasMore: true }
}

export type PersistedOutputMessageInput = {
  /** The blob file's path, which Read accepts. */
  path: string
  /** The blob's size in bytes. */
  size: number
  preview: string
  hasMore: boolean
}

/** What the model gets instead of an oversized result. The text is part of the contract (docs/design.md §5). */
export function persistedOutputMessage({ path, size, preview, hasMore }: PersistedOutputMessageInput): string {
  return (
    '<persisted-output>\n' +
    `Output too large (${formatFileSize(size)}). Full output saved to: ${path}\n\n` +
    'Preview (first 2KB):\n' +
    `${preview}\n` +
    (hasMore ? '...\n' : '') +
    '</persisted-output>'
  )
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
