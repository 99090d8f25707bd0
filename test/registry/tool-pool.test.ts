// Pins the registry's tiers (docs/design.md §3): simple mode, blanket deny rules, isEnabled, the sorted
// two-group pool with built-ins winning name clashes, the pool kept per context until the MCP list
// changes (docs/adr/0172-tool-pool-kept-per-context.md), and the API serialisation.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { assembleToolPool, getTools } from '../../src/registry/assemble-tool-pool.js'
import { createToolPool } from '../../src/registry/tool-pool.js'
import { buildTool } from '../../src/tool/build-tool.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'
import { toApiToolDefinitions } from '../../src/tool/to-api-definition.js'
import type { AnyTool } from '../../src/tool/tool.js'

const make = (name: string, extra: Partial<AnyTool> = {}): AnyTool =>
  buildTool({
    name,
    ruleFamily: 'none',
    inputSchema: z.strictObject({ path: z.string().describe('Where'), limit: z.number().int().optional() }),
    maxResultSizeChars: 1000,
    description: async () => `${name} description`,
    prompt: async () => `Use ${name} to do things.`,
    call: async () => ({ data: 'ok' }),
    ...extra,
  }) as AnyTool

// As the real ones declare it (src/tools/*): Bash, Read and Edit say they belong in simple mode.
const baseTools = ['Write', 'Bash', 'Read', 'Grep', 'Edit', 'Glob'].map((name) =>
  make(name, { inSimpleMode: ['Bash', 'Read', 'Edit'].includes(name) }),
)
const names = (tools: readonly AnyTool[]) => tools.map((tool) => tool.name)

describe('getTools', () => {
  it('keeps only the tools that say inSimpleMode (Bash, Read and Edit) in simple mode', () => {
    expect(names(getTools(createPermissionContext(), { baseTools, simple: true }))).toEqual(['Bash', 'Read', 'Edit'])
  })

  it('removes blanket-denied tools but not tools denied only for some inputs', () => {
    const context = createPermissionContext({ alwaysDenyRules: { operatorSettings: ['Write', 'Bash(rm:*)'] } })
    expect(names(getTools(context, { baseTools }))).toEqual(['Bash', 'Read', 'Grep', 'Edit', 'Glob'])
  })

  it('lets a tool veto itself with isEnabled', () => {
    const tools = [...baseTools, make('Disabled', { isEnabled: () => false })]
    expect(names(getTools(createPermissionContext(), { baseTools: tools }))).not.toContain('Disabled')
  })
})

describe('assembleToolPool', () => {
  const mcpTools = [make('mcp__zeta__run'), make('mcp__alpha__list'), make('Bash'), make('mcp__blocked__x')]

  it('sorts built-ins, then MCP tools, de-duplicated with built-ins winning', () => {
    const context = createPermissionContext({ alwaysDenyRules: { session: ['mcp__blocked__*'] } })
    const pool = assembleToolPool(context, mcpTools, { baseTools })
    expect(names(pool)).toEqual(['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'Write', 'mcp__alpha__list', 'mcp__zeta__run'])
    expect(pool[0]).toBe(baseTools[1])
  })

  it('drops a whole MCP server with `mcp__server`', () => {
    const context = createPermissionContext({ alwaysDenyRules: { operatorSettings: ['mcp__zeta'] } })
    expect(names(assembleToolPool(context, mcpTools, { baseTools: [] }))).toEqual([
      'Bash',
      'mcp__alpha__list',
      'mcp__blocked__x',
    ])
  })
})

describe('createToolPool', () => {
  it('keeps a pool per permission context, toolsets and editor, and rebuilds it when the generation moves', async () => {
    let mcpTools = [make('mcp__srv__one')]
    let assembled = 0
    const pool = createToolPool({
      assemble: ({ permissionContext }) => {
        assembled++
        return assembleToolPool(permissionContext, mcpTools, { baseTools })
      },
      toDefinition: async (tool) => ({ name: tool.name, description: '', input_schema: { type: 'object' } }),
      generation: () => mcpTools,
    })
    const context = { permissionContext: createPermissionContext() }
    const first = await pool.toolsFor(context)
    expect(await pool.toolsFor(context)).toBe(first)
    expect(assembled).toBe(1)
    // Another context, other toolsets, or another editor version, is another pool.
    await pool.toolsFor({ permissionContext: createPermissionContext() })
    await pool.toolsFor({ ...context, toolsets: ['claude_code'] })
    await pool.toolsFor({ ...context, textEditor: 'text_editor_20250124' })
    expect(assembled).toBe(4)
    expect(await pool.toolsFor({ ...context, textEditor: 'text_editor_20250124' })).toBe(
      await pool.toolsFor({ ...context, textEditor: 'text_editor_20250124' }),
    )
    expect(assembled).toBe(4)
    // The MCP list changed: the next run sees the new tool.
    mcpTools = [make('mcp__srv__one'), make('mcp__srv__two')]
    const after = await pool.toolsFor(context)
    expect(assembled).toBe(5)
    expect(names(after).filter((name) => name.startsWith('mcp__'))).toEqual(['mcp__srv__one', 'mcp__srv__two'])
  })

  it('assembles afresh on every call without a generation', async () => {
    let assembled = 0
    const pool = createToolPool({
      assemble: ({ permissionContext }) => {
        assembled++
        return assembleToolPool(permissionContext, [], { baseTools })
      },
      toDefinition: async (tool) => ({ name: tool.name, description: '', input_schema: { type: 'object' } }),
    })
    const context = { permissionContext: createPermissionContext() }
    await pool.toolsFor(context)
    await pool.toolsFor(context)
    expect(assembled).toBe(2)
  })
})

describe('API definitions', () => {
  it('serialises zod schemas strictly, MCP JSON Schema verbatim, and marks strict and deferred tools', async () => {
    const mcpSchema = { type: 'object' as const, properties: { q: { type: 'string' } }, required: ['q'] }
    const tools = [
      make('Read', { strict: true }),
      make('mcp__srv__search', { inputJSONSchema: mcpSchema, shouldDefer: true }),
      make('mcp__srv__pinned', { inputJSONSchema: mcpSchema, shouldDefer: true, alwaysLoad: true }),
    ]
    const definitions = await toApiToolDefinitions(tools, { permissionContext: createPermissionContext(), tools })
    expect(definitions[0]).toEqual({
      name: 'Read',
      description: 'Use Read to do things.',
      input_schema: {
        type: 'object',
        properties: {
          path: { type: 'string', description: 'Where' },
          limit: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
        },
        required: ['path'],
        additionalProperties: false,
      },
      strict: true,
    })
    expect(definitions[1]).toEqual({
      name: 'mcp__srv__search',
      description: 'Use mcp__srv__search to do things.',
      input_schema: mcpSchema,
      defer_loading: true,
    })
    expect(definitions[2]).not.toHaveProperty('defer_loading')
  })
})

describe('getAllBaseTools', () => {
  it('lists every built-in', async () => {
    const { getAllBaseTools } = await import('../../src/registry/get-all-base-tools.js')
    expect(names(getAllBaseTools()).sort()).toEqual(
      ['Bash', 'Edit', 'Glob', 'Grep', 'Read', 'TodoWrite', 'ToolSearch', 'Write'].sort(),
    )
  })
})
