import type { AnyTool } from '../tool/tool.js'
import type { RunOptions } from './run-options.js'

/**
 * Whether a call's error cancels its unfinished siblings under the run's `cancel_on_error`
 * (docs/design.md §6): `bash` (the default) only for tools that say `cancelsSiblingsOnError`
 * (Bash, as Claude Code does; docs/adr/0285-tools-declare-their-traits.md), `any` for every
 * tool, `none` never. An unknown tool's error is no tool's and never cascades under `bash`.
 */
export function cancelsSiblings(tool: AnyTool | undefined, policy: RunOptions['cancelOnError']): boolean {
  if (policy === 'none') return false
  return policy === 'any' || tool?.cancelsSiblingsOnError === true
}
