import { statSync } from 'node:fs'
import path from 'node:path'
import { realDirectoryNowOrLater } from '../paths/real-directory.js'
import type { AnyTool } from '../tool/tool.js'

/** `isDirectory` stats the path on first use only: most calls meet no path rule that needs it. */
export type ResolvedToolPath = { absolute: string; isDirectory(): boolean }

/** One synchronous stat of a path just resolved: no threadpool round trip (docs/adr/0312). */
function statsAsDirectory(target: string): boolean {
  try {
    return statSync(target, { throwIfNoEntry: false })?.isDirectory() === true
  } catch {
    return false
  }
}

/**
 * The path a call touches (the tool's `getPath(input)`, relative to the session cwd), resolved
 * and real (resolved at most once per turn of the event loop, as working directories are);
 * undefined when the tool names no path. Tools that say so (`pathDefaultsToCwd`: Glob,
 * Grep) default to the cwd.
 */
export async function resolveToolPath(
  tool: AnyTool,
  input: { [key: string]: unknown },
  cwd: string,
): Promise<ResolvedToolPath | undefined> {
  let target: string | undefined
  try {
    target = tool.getPath?.(input)
  } catch {
    target = undefined
  }
  if ((target === undefined || target === '') && tool.pathDefaultsToCwd) target = cwd
  if (target === undefined || target === '') return undefined
  // The resolution the tool's validation made in this turn, when it made one: the rules decide on
  // the path the call will open (docs/adr/0466-the-rules-see-the-path-validation-resolved.md).
  // Taken without a promise when realpath(3) answers (docs/adr/0603).
  const resolved = realDirectoryNowOrLater(path.resolve(cwd, target))
  const absolute = typeof resolved === 'string' ? resolved : await resolved
  // Asked only by a path rule's directory form, in the same turn as the decision
  // (docs/adr/0477-a-path-is-statted-only-for-a-rule-that-asks.md).
  let directory: boolean | undefined
  return { absolute, isDirectory: () => (directory ??= statsAsDirectory(absolute)) }
}
