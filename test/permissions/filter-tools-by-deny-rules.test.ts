// Pins pool filtering: only blanket deny rules and MCP server rules hide tools; content rules never do.
import { describe, expect, it } from 'vitest'
import { filterToolsByDenyRules, getDenyRuleForTool } from '../../src/permissions/filter-tools-by-deny-rules.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'
import type { RuleFamily } from '../../src/tool/tool.js'

const FAMILIES: Record<string, RuleFamily> = { Bash: 'shell', Read: 'read', Edit: 'edit', Write: 'edit', Glob: 'read' }
const tools = ['Bash', 'Read', 'Edit', 'Write', 'Glob', 'mcp__srv__a', 'mcp__srv__b', 'mcp__other__a'].map((name) => ({
  name,
  ruleFamily: FAMILIES[name] ?? ('none' as const),
}))
const names = (deny: string[]) =>
  filterToolsByDenyRules(tools, createPermissionContext({ alwaysDenyRules: { operatorSettings: deny } })).map(
    (tool) => tool.name,
  )

describe('filterToolsByDenyRules', () => {
  it('keeps everything without deny rules', () => {
    expect(names([])).toEqual(tools.map((tool) => tool.name))
  })
  it('removes a blanket-denied tool', () => {
    expect(names(['Bash'])).not.toContain('Bash')
  })
  it('keeps tools that only have content deny rules', () => {
    expect(names(['Bash(rm:*)', 'Read(secrets/**)'])).toEqual(tools.map((tool) => tool.name))
  })
  it('removes every tool of a server for mcp__srv and mcp__srv__*', () => {
    expect(names(['mcp__srv'])).toEqual(['Bash', 'Read', 'Edit', 'Write', 'Glob', 'mcp__other__a'])
    expect(names(['mcp__srv__*'])).toEqual(['Bash', 'Read', 'Edit', 'Write', 'Glob', 'mcp__other__a'])
  })
  it('removes one MCP tool by exact name', () => {
    expect(names(['mcp__srv__a'])).toEqual(['Bash', 'Read', 'Edit', 'Write', 'Glob', 'mcp__srv__b', 'mcp__other__a'])
  })
  it('lets Edit cover Write and Read cover Glob', () => {
    expect(names(['Edit'])).not.toContain('Write')
    expect(names(['Read'])).not.toContain('Glob')
  })
  it('matches aliases', () => {
    const context = createPermissionContext({ alwaysDenyRules: { session: ['Shell'] } })
    expect(getDenyRuleForTool(context, { name: 'Bash', aliases: ['Shell'], ruleFamily: 'shell' })).toMatchObject({
      text: 'Shell',
      source: 'session',
    })
  })
})
