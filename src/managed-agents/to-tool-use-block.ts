import type { ToolUseBlock } from '../messages/content-blocks.js'

/** The fields of an `agent.tool_use` event this worker reads. */
export type AgentToolUse = {
  id: string
  name: string
  input: Record<string, unknown>
  evaluated_permission?: 'allow' | 'ask' | 'deny' | undefined
}

type Input = Record<string, unknown>

/**
 * The agent toolset's six tools (`agent_toolset_20260401`) as toolexec's built-in tools, with
 * their inputs renamed where the two differ (docs/adr/0401). Other names pass through unchanged:
 * a session's custom tools may name toolexec's tools directly, and an unknown name gets the
 * pipeline's "No such tool" result.
 */
const TOOLS: Record<string, { name: string; input: (input: Input) => Input }> = {
  bash: { name: 'Bash', input: bashInput },
  read: { name: 'Read', input: readInput },
  write: { name: 'Write', input: (input) => input },
  edit: { name: 'Edit', input: (input) => input },
  glob: { name: 'Glob', input: (input) => input },
  grep: { name: 'Grep', input: (input) => input },
}

function bashInput({ timeout_ms, restart: _restart, ...rest }: Input): Input {
  // `restart` has no counterpart: each toolexec Bash call already starts from the session's state.
  return timeout_ms === undefined ? rest : { ...rest, timeout: timeout_ms }
}

/** `view_range: [first, last]` (1-based, inclusive; last -1: to the end) as Read's offset and limit. */
function readInput({ view_range, ...rest }: Input): Input {
  if (!Array.isArray(view_range) || view_range.length !== 2)
    return view_range === undefined ? rest : { ...rest, view_range }
  const [first, last] = view_range as unknown[]
  if (typeof first !== 'number' || typeof last !== 'number') return { ...rest, view_range }
  return last === -1 ? { ...rest, offset: first } : { ...rest, offset: first, limit: Math.max(1, last - first + 1) }
}

export function toToolUseBlock(event: AgentToolUse): ToolUseBlock {
  const tool = TOOLS[event.name]
  const input = event.input ?? {}
  return tool
    ? { type: 'tool_use', id: event.id, name: tool.name, input: tool.input(input) }
    : { type: 'tool_use', id: event.id, name: event.name, input }
}
