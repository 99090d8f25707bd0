import { BASH_TOOL_NAME } from '../tools/bash/bash-limits.js'
import type { RunOptions } from './run-options.js'

/**
 * Whether a call's error cancels its unfinished siblings under the run's `cancel_on_error`
 * (docs/design.md §6): `bash` (the default) only for Bash, as Claude Code does, `any` for
 * every tool, `none` never. The one place that knows a tool by name for this.
 */
export function cancelsSiblings(toolName: string, policy: RunOptions['cancelOnError']): boolean {
  if (policy === 'none') return false
  return policy === 'any' || toolName === BASH_TOOL_NAME
}
