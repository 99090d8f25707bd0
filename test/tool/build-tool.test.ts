// Pins buildTool's fail-closed defaults, string texts turned into functions, and that bad
// definitions fail when built, not when called.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool, ToolDefinitionError } from '../../src/tool/build-tool.js'
import { findToolByName } from '../../src/tool/find-tool.js'

const minimal = {
  name: 'Minimal',
  ruleFamily: 'none' as const,
  inputSchema: z.strictObject({ path: z.string() }),
  maxResultSizeChars: 1_000,
  description: async () => 'minimal',
  prompt: async () => 'minimal',
  call: async () => ({ data: 'ok' }),
}

describe('buildTool', () => {
  it('fills fail-closed defaults: enabled, not concurrency-safe, not read-only, not destructive, no objection', async () => {
    const tool = buildTool(minimal)
    expect(tool.isEnabled()).toBe(true)
    expect(tool.isConcurrencySafe({ path: 'a' })).toBe(false)
    expect(tool.isReadOnly({ path: 'a' })).toBe(false)
    expect(tool.isDestructive({ path: 'a' })).toBe(false)
    expect(tool.userFacingName()).toBe('Minimal')
    // §2: the tool has no objection of its own; the general rules still decide first.
    expect(await tool.checkPermissions({ path: 'a' })).toEqual({ behavior: 'allow', updatedInput: { path: 'a' } })
  })

  it('keeps what the definition provides', () => {
    const tool = buildTool({
      ...minimal,
      isReadOnly: (_input: { path: string }) => true,
      isConcurrencySafe: (_input: { path: string }) => true,
    })
    expect(tool.isReadOnly({ path: 'a' })).toBe(true)
    expect(tool.isConcurrencySafe({ path: 'a' })).toBe(true)
  })

  it('turns a string description and prompt into async functions and keeps function forms', async () => {
    const texts = buildTool({ ...minimal, description: 'Describes', prompt: 'Prompts' })
    expect(await texts.description()).toBe('Describes')
    expect(await texts.prompt()).toBe('Prompts')
    const functions = buildTool(minimal)
    expect(functions.description).toBe(minimal.description)
    expect(await functions.prompt()).toBe('minimal')
  })

  it('maps strings, block arrays and other data to content', () => {
    const tool = buildTool(minimal)
    expect(tool.mapToolResult('text', 'id')).toEqual({ content: 'text' })
    expect(tool.mapToolResult([{ type: 'text', text: 'x' }], 'id')).toEqual({ content: [{ type: 'text', text: 'x' }] })
    expect(tool.mapToolResult({ a: 1 }, 'id')).toEqual({ content: '{"a":1}' })
  })

  it('rejects a definition without a name or a schema when built', () => {
    expect(() => buildTool({ ...minimal, name: '' })).toThrow(ToolDefinitionError)
    expect(() => buildTool({ ...minimal, inputSchema: undefined as never })).toThrow(/inputSchema/)
    expect(() => buildTool({ ...minimal, inputSchema: { type: 'object' } as never })).toThrow(/zod schema/)
    // The trait that keeps a file tool under the operator's Edit(...) deny rules cannot be left out.
    expect(() => buildTool({ ...minimal, ruleFamily: undefined as never })).toThrow(/ruleFamily/)
    expect(() => buildTool({ ...minimal, ruleFamily: 'write' as never })).toThrow(/read, edit, shell or none/)
  })

  it('finds tools by name or alias', () => {
    const tools = [buildTool({ ...minimal, aliases: ['Old'] })]
    expect(findToolByName(tools, 'Minimal')).toBe(tools[0])
    expect(findToolByName(tools, 'Old')).toBe(tools[0])
    expect(findToolByName(tools, 'Other')).toBeUndefined()
  })
})
