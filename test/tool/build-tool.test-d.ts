// Pins the types of built tools: call's input is inferred from the zod schema, the built
// tool is as narrow as its definition, and string descriptions and prompts become functions.
import { describe, expectTypeOf, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../src/tool/build-tool.js'
import type { AnyTool, ToolResult } from '../../src/tool/tool.js'

const schema = z.strictObject({ command: z.string(), timeout: z.number().optional() })

describe('buildTool types', () => {
  it('asks for the rule family: a file tool must not escape Edit(...) rules by omission', () => {
    // @ts-expect-error ruleFamily is required
    buildTool({
      name: 'NoFamily',
      inputSchema: schema,
      maxResultSizeChars: 10,
      description: 'd',
      prompt: 'p',
      call: async () => ({ data: 1 }),
    })
  })

  it('infers call input from the schema', () => {
    buildTool({
      name: 'Bashish',
      ruleFamily: 'none',
      inputSchema: schema,
      maxResultSizeChars: 10,
      description: async () => 'd',
      prompt: async () => 'p',
      async call(input) {
        expectTypeOf(input).toEqualTypeOf<{ command: string; timeout?: number | undefined }>()
        return { data: input.command.length }
      },
    })
  })

  it('keeps the definition’s own members and literal name', () => {
    const tool = buildTool({
      name: 'Narrow',
      ruleFamily: 'none',
      inputSchema: schema,
      maxResultSizeChars: 10,
      description: async () => 'd',
      prompt: async () => 'p',
      call: async () => ({ data: 1 as const }),
      isReadOnly: () => true as const,
    })
    expectTypeOf(tool.name).toEqualTypeOf<'Narrow'>()
    expectTypeOf(tool.isReadOnly).returns.toEqualTypeOf<true>()
    expectTypeOf(tool.isConcurrencySafe).returns.toEqualTypeOf<boolean>()
    expectTypeOf(tool.call).returns.resolves.toEqualTypeOf<{ data: 1 }>()
    expectTypeOf(tool).toExtend<AnyTool>()
  })

  it('rejects a call whose input does not fit the schema', () => {
    buildTool({
      name: 'Wrong',
      ruleFamily: 'none',
      inputSchema: schema,
      maxResultSizeChars: 10,
      description: async () => 'd',
      prompt: async () => 'p',
      async call(input): Promise<ToolResult<string>> {
        // @ts-expect-error `missing` is not in the schema's output
        return { data: input.missing }
      },
    })
  })

  it('turns a string description and prompt into functions', () => {
    const tool = buildTool({
      name: 'Texts',
      ruleFamily: 'none',
      inputSchema: schema,
      maxResultSizeChars: 10,
      description: 'd',
      prompt: 'p',
      call: async () => ({ data: 1 }),
    })
    expectTypeOf(tool.description).toEqualTypeOf<() => Promise<string>>()
    expectTypeOf(tool.prompt).toEqualTypeOf<() => Promise<string>>()
    expectTypeOf(tool).toExtend<AnyTool>()
  })

  it('rejects a description that is neither a string nor a function', () => {
    buildTool({
      name: 'NotText',
      ruleFamily: 'none',
      inputSchema: schema,
      maxResultSizeChars: 10,
      // @ts-expect-error a description is a string or a function returning one
      description: 42,
      prompt: 'p',
      call: async () => ({ data: 1 }),
    })
  })
})
