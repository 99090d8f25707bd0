import type { AnyTool } from '../tool/tool.js'
import { createBuiltInTools } from '../tools/built-in-tools.js'

/** Tier 1: every built-in this build has. */
export function getAllBaseTools(): AnyTool[] {
  return createBuiltInTools()
}
