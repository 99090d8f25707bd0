import type { AnyTool } from '../tool/tool.js'
import type { RunOptions } from './run-options.js'
import type { TrackedCall } from './tracked-call.js'

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

/** What an interrupt stops: only running calls whose tool says it may be cancelled mid-way (docs/design.md §6). */
export function interruptible(call: TrackedCall): boolean {
  return call.tool?.interruptBehavior?.() === 'cancel'
}
