// Pins that every built-in and client tool declares the traits the rules read (docs/adr/0285-tools-declare-their-traits.md):
// a tool that can write a path is reached by the operator's Edit(...) rules (so an `Edit` deny
// covers it, and acceptEdits applies), one that only reads a path by Read(...) rules, the shells
// by Bash(...) command rules; nothing else is swept in. A new file tool that forgets its trait
// fails here, not in an operator's incident report.
import { describe, expect, it } from 'vitest'
import { ruleCoversTool } from '../../src/permissions/rule-covers-tool.js'
import { getAllBaseTools } from '../../src/registry/get-all-base-tools.js'
import type { AnyTool } from '../../src/tool/tool.js'
import { createClientBashTool } from '../../src/tools/client-bash/client-bash-tool.js'
import { createShellRegistry } from '../../src/tools/client-bash/shell-registry.js'
import { createMemoryTool } from '../../src/tools/memory/memory-tool.js'
import { createTextEditorTool } from '../../src/tools/text-editor/text-editor-tool.js'

const tools: AnyTool[] = [
  ...getAllBaseTools(),
  createClientBashTool({ shells: createShellRegistry({ idleTtlMs: 1_000, maxShells: 1 }) }),
  createTextEditorTool({ type: 'text_editor_20250728' }),
  createTextEditorTool({ type: 'text_editor_20250124' }),
  createMemoryTool(() => '/nonexistent/memories'),
]
const names = (predicate: (tool: AnyTool) => boolean) =>
  tools
    .filter(predicate)
    .map((tool) => tool.name)
    .sort()

describe('tool traits', () => {
  it('every tool that can write a path is covered by Edit(...) rules, and only those', () => {
    const writesPaths = (tool: AnyTool) => tool.getPath !== undefined && !tool.isReadOnly({})
    for (const tool of tools.filter(writesPaths)) expect(ruleCoversTool('Edit', tool), tool.name).toBe(true)
    expect(names((tool) => ruleCoversTool('Edit', tool))).toEqual(names(writesPaths))
    expect(names(writesPaths)).toEqual(['Edit', 'Write', 'str_replace_based_edit_tool', 'str_replace_editor'])
  })

  it('every tool that only reads a path is covered by Read(...) rules, and only those', () => {
    const readsPaths = (tool: AnyTool) => tool.getPath !== undefined && tool.isReadOnly({})
    expect(names((tool) => ruleCoversTool('Read', tool))).toEqual(names(readsPaths))
    expect(names(readsPaths)).toEqual(['Glob', 'Grep', 'Read'])
  })

  it('both shells take Bash(...) command rules; searches default to the cwd; simple mode keeps Bash, Read, Edit', () => {
    expect(names((tool) => ruleCoversTool('Bash', tool))).toEqual(['Bash', 'bash'])
    expect(names((tool) => tool.pathDefaultsToCwd === true)).toEqual(['Glob', 'Grep'])
    expect(names((tool) => tool.inSimpleMode === true)).toEqual(['Bash', 'Edit', 'Read'])
    expect(names((tool) => tool.cancelsSiblingsOnError === true)).toEqual(['Bash'])
  })
})
