import { type Stats, statSync } from 'node:fs'
import type { ToolUseContext, ValidationResult } from '../../tool/tool.js'

/**
 * An existing file may be changed only if this session read it and nobody changed it since:
 * otherwise the model would overwrite content it has not seen.
 */
export function checkReadBeforeWrite(
  realPath: string,
  displayPath: string,
  stats: Stats,
  context: Pick<ToolUseContext, 'readFileState'>,
): ValidationResult {
  const record = context.readFileState.get(realPath)
  if (!record) {
    return {
      result: false,
      message: `The file ${displayPath} has not been read in this session. Read it first, then retry.`,
    }
  }
  if (record.mtimeMs !== stats.mtimeMs || record.size !== stats.size)
    return { result: false, message: modifiedSinceRead(displayPath) }
  return { result: true }
}

/** The refusal of a file changed since the session read it. */
export function modifiedSinceRead(displayPath: string): string {
  return `The file ${displayPath} was modified since it was last read (by the user, a command or another tool). Read it again, then retry.`
}

/**
 * After a successful write the session has seen the new content: record it as fully read.
 * `written`: the stats of the descriptor written, taken once the write was done
 * (docs/adr/0526-a-write-is-recorded-from-its-descriptor.md); otherwise the path is stat'ed.
 * Synchronous: it awaits nothing, and a call awaiting it paid a turn of the microtask queue (docs/adr/0589).
 */
export function recordWrite(realPath: string, context: Pick<ToolUseContext, 'readFileState'>, written?: Stats): void {
  // One synchronous stat of the path just written, as docs/adr/0312 does for a call's path (docs/adr/0386).
  const stats = written ?? statSync(realPath)
  context.readFileState.set(realPath, { mtimeMs: stats.mtimeMs, size: stats.size, partial: false })
}
