/** Tools whose `Read(...)` rules apply: they read files under a path. */
const READ_FILE_TOOLS: ReadonlySet<string> = new Set(['Read', 'Glob', 'Grep'])

/** Tools whose `Edit(...)` rules apply: they change files. */
export const EDIT_FILE_TOOLS: ReadonlySet<string> = new Set([
  'Edit',
  'Write',
  'NotebookEdit',
  // The Messages API's text editors (docs/adr/0144-client-tool-permissions.md).
  'str_replace_based_edit_tool',
  'str_replace_editor',
])

/** The shells whose rules are command rules: Claude Code's `Bash` and the API's `bash`. */
export const SHELL_TOOLS: ReadonlySet<string> = new Set(['Bash', 'bash'])

type NamedTool = { name: string; aliases?: readonly string[] }

/** `mcp__srv__tool` → `srv`; undefined for built-ins. */
function mcpServerOf(toolName: string): string | undefined {
  const parts = toolName.split('__')
  return parts[0] === 'mcp' && parts.length >= 3 && parts[1] !== '' ? parts[1] : undefined
}

/** `mcp__srv` and `mcp__srv__*` name a whole server; the server, else undefined. */
function mcpServerRuleOf(ruleToolName: string): string | undefined {
  const parts = ruleToolName.split('__')
  if (parts[0] !== 'mcp' || parts[1] === undefined || parts[1] === '') return undefined
  if (parts.length === 2) return parts[1]
  if (parts.length === 3 && parts[2] === '*') return parts[1]
  return undefined
}

function namesOf(tool: NamedTool): string[] {
  return [tool.name, ...(tool.aliases ?? [])]
}

/**
 * Does a rule naming `ruleToolName` apply to this tool? Exact name or alias; `Read` also covers
 * Glob and Grep, `Edit` also covers Write and NotebookEdit; `mcp__srv` and `mcp__srv__*` cover
 * every tool of that server.
 */
export function ruleCoversTool(ruleToolName: string, tool: NamedTool): boolean {
  const names = namesOf(tool)
  if (names.includes(ruleToolName)) return true
  if (ruleToolName === 'Read' && names.some((name) => READ_FILE_TOOLS.has(name))) return true
  if (ruleToolName === 'Edit' && names.some((name) => EDIT_FILE_TOOLS.has(name))) return true
  if (ruleToolName === 'Bash' && names.some((name) => SHELL_TOOLS.has(name))) return true
  const server = mcpServerRuleOf(ruleToolName)
  return server !== undefined && names.some((name) => mcpServerOf(name) === server)
}
