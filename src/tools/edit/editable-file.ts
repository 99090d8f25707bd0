import type { Stats } from 'node:fs'
import type { ToolUseContext } from '../../tool/tool.js'
import { checkReadBeforeWrite } from '../shared/check-read-before-write.js'

/** Edit holds the file in memory twice; bigger files are for Bash tools. */
const MAX_EDIT_FILE_BYTES = 10 * 1024 * 1024

/**
 * Why an existing file with `stats` may not be edited, undefined when it may: a directory or
 * special file, too large, or not read in this session since it last changed. The same texts
 * whether the stats come from a path's stat or from the descriptor the call writes (docs/adr/0525).
 */
export function editRefusal(
  displayPath: string,
  realPath: string,
  stats: Stats,
  context: Pick<ToolUseContext, 'readFileState'>,
): string | undefined {
  if (stats.isDirectory()) return `${displayPath} is a directory; give the path of a file.`
  if (!stats.isFile()) return `${displayPath} is not a regular file.`
  if (stats.size > MAX_EDIT_FILE_BYTES) {
    return `${displayPath} is ${stats.size} bytes, too large for Edit. Use Bash instead.`
  }
  const fresh = checkReadBeforeWrite(realPath, displayPath, stats, context)
  return fresh.result ? undefined : fresh.message
}
