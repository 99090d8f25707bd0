import { wrapToolUseError } from '../messages/tool-error-messages.js'
import { formatValidationIssues } from './format-validation-error.js'
import type { AnyTool } from './tool.js'

export type ParsedInput = { ok: true; data: { [key: string]: unknown } } | { ok: false; message: string }

/**
 * Step 3: the schema parse. The input is cloned first so nothing downstream can reach back
 * into the caller's block (it is what the caller sent and stays that way).
 */
export function parseToolInput(tool: AnyTool, input: unknown): ParsedInput {
  const result = tool.inputSchema.safeParse(isFlatRecord(input) ? input : structuredClone(input))
  if (result.success) return { ok: true, data: result.data as { [key: string]: unknown } }
  const lines = formatValidationIssues(result.error.issues, input)
  // `issue` for one line, `issues` for more, as SPEC §4 writes it (docs/adr/0099-validation-header-counts-issues.md).
  const noun = lines.length === 1 ? 'issue' : 'issues'
  return {
    ok: false,
    message: wrapToolUseError(
      `InputValidationError: ${tool.name} failed due to the following ${noun}:\n${lines.join('\n')}`,
    ),
  }
}

/** A flat object of primitives: the parse output cannot share anything mutable with it. */
function isFlatRecord(input: unknown): boolean {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return false
  for (const key in input) {
    const value = (input as Record<string, unknown>)[key]
    if (value !== null && typeof value === 'object') return false
  }
  return true
}

/** Step 5: drops fields only the service may set (Bash's `_simulatedSedEdit`), schema or not. */
export function stripInternalKeys(tool: AnyTool, input: { [key: string]: unknown }): { [key: string]: unknown } {
  const internal = tool.internalInputKeys
  if (!internal?.some((key) => key in input)) return input
  const copy = { ...input }
  for (const key of internal) delete copy[key]
  return copy
}

/** The backfilled clone hooks and permission checks observe; `call` never receives it. */
export function observableCopy(tool: AnyTool, input: { [key: string]: unknown }): { [key: string]: unknown } {
  if (!tool.backfillObservableInput) return input
  const clone = structuredClone(input)
  tool.backfillObservableInput(clone)
  return clone
}
