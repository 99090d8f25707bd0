// Pins the built-in tool set: names, strict schemas with a description on every field, prompts, limits and flags.

import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createPermissionContext } from '../../src/tool/permission-context.js'
import { createBuiltInTools } from '../../src/tools/built-in-tools.js'

const tools = createBuiltInTools()

function undescribedFields(schema: unknown, at = ''): string[] {
  const node = schema as { properties?: Record<string, unknown>; items?: unknown; description?: string }
  const missing: string[] = []
  for (const [key, value] of Object.entries(node.properties ?? {})) {
    if (!(value as { description?: string }).description) missing.push(`${at}${key}`)
    missing.push(...undescribedFields(value, `${at}${key}.`))
  }
  if (node.items) missing.push(...undescribedFields(node.items, `${at}[].`))
  return missing
}

describe('createBuiltInTools', () => {
  it('has the eight built-in tools', () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'Bash',
      'Edit',
      'Glob',
      'Grep',
      'Read',
      'TodoWrite',
      'ToolSearch',
      'Write',
    ])
  })

  it.each(tools.map((tool) => [tool.name, tool] as const))(
    '%s has a strict, fully described schema and a prompt',
    async (_name, tool) => {
      const jsonSchema = z.toJSONSchema(tool.inputSchema) as { additionalProperties?: boolean }
      expect(jsonSchema.additionalProperties).toBe(false)
      expect(undescribedFields(jsonSchema)).toEqual([])
      const options = { permissionContext: createPermissionContext(), tools }
      expect((await tool.prompt(options)).length).toBeGreaterThan(100)
      expect(tool.userFacingName()).toBe(tool.name)
    },
  )

  it('declares the documented result limits', () => {
    const limits = Object.fromEntries(tools.map((tool) => [tool.name, tool.maxResultSizeChars]))
    expect(limits).toMatchObject({ Bash: 30_000, Grep: 20_000, Glob: 100_000, Read: Number.POSITIVE_INFINITY })
  })

  it('marks only the reading tools read-only', () => {
    const readOnly = tools.filter((tool) =>
      tool.isReadOnly({ command: 'ls', file_path: 'x', pattern: 'x', query: 'x' }),
    )
    expect(readOnly.map((tool) => tool.name).sort()).toEqual(['Bash', 'Glob', 'Grep', 'Read', 'ToolSearch'])
  })

  it('leaves shell and file calls to the permission rules, and allows session-only tools itself', async () => {
    const behaviours = Object.fromEntries(
      await Promise.all(
        createBuiltInTools().map(async (tool) => [tool.name, (await tool.checkPermissions({}, {} as never)).behavior]),
      ),
    )
    expect(behaviours).toEqual({
      Bash: 'passthrough',
      Read: 'passthrough',
      Write: 'passthrough',
      Edit: 'passthrough',
      Glob: 'passthrough',
      Grep: 'passthrough',
      TodoWrite: 'allow',
      ToolSearch: 'allow',
    })
  })
})
