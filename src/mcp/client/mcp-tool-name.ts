/** The Messages API accepts tool names of 1–64 characters from this set. */
export const API_TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/

/** Any character the API would refuse in a tool name becomes `_`. */
function normalizeNameForMcp(name: string): string {
  return name.replace(/[^a-zA-Z0-9_-]/g, '_')
}

/** `mcp__<server>__<tool>`, both parts normalised: the name the model sees and permission rules match. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${normalizeNameForMcp(server)}__${normalizeNameForMcp(tool)}`
}
