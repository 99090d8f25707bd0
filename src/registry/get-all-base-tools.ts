import type { AnyTool } from '../tool/tool.js'
import { createBuiltInTools } from '../tools/built-in-tools.js'

export type BaseToolFlags = {
  /** ToolSearch is only useful when some tools are deferred (MCP servers); on by default. */
  toolSearch?: boolean
}

/** Tier 1: every built-in this build has, gated by configuration flags. */
export function getAllBaseTools(flags: BaseToolFlags = {}): AnyTool[] {
  const tools = createBuiltInTools()
  return flags.toolSearch === false ? tools.filter((tool) => tool.name !== 'ToolSearch') : tools
}
