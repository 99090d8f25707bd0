import type { AnyTool } from '../tool/tool.js'
import { BashTool } from './bash/bash-tool.js'
import { EditTool } from './edit/edit-tool.js'
import { GlobTool } from './glob/glob-tool.js'
import { GrepTool } from './grep/grep-tool.js'
import { ReadTool } from './read/read-tool.js'
import { TodoWriteTool } from './todo-write/todo-write-tool.js'
import { ToolSearchTool } from './tool-search/tool-search-tool.js'
import { WriteTool } from './write/write-tool.js'

/** Every built-in tool, in no particular order (the registry sorts the pool by name). */
export function createBuiltInTools(): AnyTool[] {
  return [BashTool, ReadTool, WriteTool, EditTool, GlobTool, GrepTool, TodoWriteTool, ToolSearchTool]
}
