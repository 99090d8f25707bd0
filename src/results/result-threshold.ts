/** No result is kept inline past this, whatever a tool declares (Glob and MCP declare 100,000). */
export const DEFAULT_MAX_RESULT_SIZE_CHARS = 50_000

/**
 * Characters above which a tool's result is persisted to a blob: the tool's declared limit,
 * capped at 50,000. `Infinity` stays `Infinity` (Read: never persisted, so Read never has to
 * read back a blob that would itself be persisted).
 */
export function persistenceThreshold(tool: { maxResultSizeChars: number }): number {
  const declared = tool.maxResultSizeChars
  if (Number.isNaN(declared) || declared < 0) {
    throw new TypeError(`Expected \`maxResultSizeChars\` to be a non-negative number, got ${declared}`)
  }
  if (declared === Number.POSITIVE_INFINITY) return declared
  return Math.min(declared, DEFAULT_MAX_RESULT_SIZE_CHARS)
}
