import { NO_OUTPUT_FALLBACK } from '../messages/tool-error-messages.js'

const MAX_ERROR_CHARS = 10_000
const KEPT_EACH_END = 5_000

/** Keeps both ends of a long error: the command line and the final failure are both useful. */
function truncateMiddle(text: string): string {
  if (text.length <= MAX_ERROR_CHARS) return text
  const dropped = text.length - 2 * KEPT_EACH_END
  return `${text.slice(0, KEPT_EACH_END)}\n\n... [${dropped} characters truncated] ...\n\n${text.slice(-KEPT_EACH_END)}`
}

function stringField(error: object, key: string): string {
  const value = (error as Record<string, unknown>)[key]
  return typeof value === 'string' ? value : ''
}

/**
 * The text a model gets when `call` throws: message, then stderr, then stdout, joined by
 * newlines; nothing at all becomes a fixed sentence; very long text keeps its two ends.
 */
export function formatThrownError(error: unknown): string {
  const parts =
    error instanceof Error
      ? [error.message, stringField(error, 'stderr'), stringField(error, 'stdout')]
      : [typeof error === 'string' ? error : error === undefined ? '' : String(error)]
  const joined = parts
    .filter((part) => part !== '')
    .join('\n')
    .trim()
  return truncateMiddle(joined === '' ? NO_OUTPUT_FALLBACK : joined)
}
