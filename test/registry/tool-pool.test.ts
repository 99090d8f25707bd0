// Pins the registry's tiers (docs/design.md §3): simple mode, blanket deny rules, isEnabled, the sorted
// two-group pool with built-ins winning name clashes, and the API serialisation.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { assembleToolPool, getTools } from '../../src/registry/assemble-tool-pool.js'
import { buildTool } from '../../src/tool/build-tool.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'
import { toApiToolDefinitions } from '../../src/tool/to-api-definition.js'
import type { AnyTool } from '../../src/tool/tool.js'

const make = (name: string, extra: Partial<AnyTool> = {}): AnyTool =>
  buildTool({
    name,
    inputSchema: z.strictObject({ path: z.string().describe('Where'), limit: z.number().int().optional() }),
    maxResultSizeChars: 1000,
    description: async () => `${name} description`,
    prompt: async () => `Use ${name} to do things.`,
    call: async () => ({ data: 'ok' }),
    ...extra,
  }) as AnyTool

const baseTools = ['Write', 'Bash', 'Read', 'Grep', 'Edit', 'Glob'].map((name) => make(name))
const names = (tools: AnyTool[]) => tools.map((tool) => tool.name)

describe('getTools', () => {
  it('keeps only Bash, Read and Edit in simple mode', () => {
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
