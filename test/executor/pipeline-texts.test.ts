// Pins every error text of docs/design.md §4 byte for byte, and the three copies of a call's input.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import type { HookRunner } from '../../src/executor/hook-runner.js'
import type { PermissionGate } from '../../src/executor/permission-gate.js'
import { buildTool } from '../../src/tool/build-tool.js'
import type { AnyTool } from '../../src/tool/tool.js'
import { block, contentOf, startRun } from './helpers.js'

function tool(overrides: Partial<AnyTool> & { name?: string } = {}): AnyTool {
  return buildTool({
    name: 'Probe',
    inputSchema: z.strictObject({ value: z.string().optional() }),
    maxResultSizeChars: 30_000,
    description: async () => 'probe',
    prompt: async () => 'probe',
    async call(input: { value?: string }) {
      return { data: input.value ?? 'ok' }
    },
    ...overrides,
  }) as AnyTool
}

async function runOne(t: AnyTool, input: unknown, extra = {}) {
  const run = await startRun([t], [block('t1', t.name, input)], {}, extra)
  const outcome = await run.done()
  return outcome.results[0]!
}

const thrower = (error: unknown) => tool({ call: async () => Promise.reject(error) })

describe('error texts', () => {
  it('unknown tool', async () => {
    const run = await startRun([tool()], [block('x', 'Missing', {})])
    const outcome = await run.done()
    expect(outcome.results[0]).toEqual({
      type: 'tool_result',
      tool_use_id: 'x',
      content: '<tool_use_error>Error: No such tool available: Missing</tool_use_error>',
      is_error: true,
    })
  })

  it('unknown tool whose name differs only in case: names the tool it most likely meant', async () => {
    const run = await startRun([tool()], [block('x', 'probe', {})])
    expect(contentOf(await run.done(), 'x')).toBe(
      '<tool_use_error>Error: No such tool available: probe. Tool names are case-sensitive: did you mean Probe?</tool_use_error>',
    )
  })

  it('finds tools by alias', async () => {
    const run = await startRun([tool({ aliases: ['OldProbe'] })], [block('x', 'OldProbe', { value: 'via alias' })])
    expect(contentOf(await run.done(), 'x')).toBe('via alias')
  })

  it('InputValidationError names missing, unexpected and mistyped parameters with their paths', async () => {
    const schema = z.strictObject({
      command: z.string(),
      timeout: z.number().optional(),
      items: z.array(z.strictObject({ b: z.number() })),
    })
    const result = await runOne(tool({ name: 'Shape', inputSchema: schema }), {
      timeout: 'soon',
      extra: 1,
      items: [{ b: 'two' }],
    })
    expect(result.is_error).toBe(true)
    expect(result.content).toBe(
      [
        '<tool_use_error>InputValidationError: Shape failed due to the following issues:',
        'The required parameter `command` is missing',
        'The parameter `timeout` type is expected as `number` but provided as `string`',
        'The parameter `items[0].b` type is expected as `number` but provided as `string`',
        'An unexpected parameter `extra` was provided</tool_use_error>',
      ].join('\n'),
    )
  })

  it('an input that is not an object says so without a parameter name', async () => {
    expect((await runOne(tool(), 'just text')).content).toBe(
      '<tool_use_error>InputValidationError: Probe failed due to the following issue:\nThe input type is expected as `object` but provided as `string`</tool_use_error>',
    )
  })

  it('validateInput failure is wrapped and call never runs', async () => {
    let called = false
    const result = await runOne(
      tool({
        validateInput: async () => ({ result: false, message: 'File does not exist: a.txt' }),
        call: async () => {
          called = true
          return { data: 'no' }
        },
      }),
      {},
    )
    expect(result.content).toBe('<tool_use_error>File does not exist: a.txt</tool_use_error>')
    expect(called).toBe(false)
  })

  it('a thrown error becomes message, stderr, stdout joined by newlines, with no wrapper', async () => {
    const error = Object.assign(new Error('Exit code 2'), { stderr: 'bad flag', stdout: 'partial' })
    expect((await runOne(thrower(error), {})).content).toBe('Exit code 2\nbad flag\npartial')
  })

  it('an empty throw says so', async () => {
    expect((await runOne(thrower(new Error('')), {})).content).toBe('Command failed with no output')
  })

  it('a non-Error throw is shown as text', async () => {
    expect((await runOne(thrower('plain string'), {})).content).toBe('plain string')
  })

  it('errors over 10,000 characters keep the first and last 5,000', async () => {
    const long = `${'a'.repeat(6000)}${'b'.repeat(6000)}`
    const content = (await runOne(thrower(new Error(long)), {})).content
    expect(content).toBe(`${'a'.repeat(5000)}\n\n... [2000 characters truncated] ...\n\n${'b'.repeat(5000)}`)
  })

  it('a fault inside the pipeline becomes "Error calling tool"', async () => {
    const broken = tool({
      validateInput: async () => {
        throw new Error('validator crashed')
      },
    })
    expect((await runOne(broken, {})).content).toBe(
      '<tool_use_error>Error calling tool (Probe): validator crashed</tool_use_error>',
    )
    const badMapper = tool({
      mapToolResult: () => {
        throw new Error('cannot map')
      },
    })
    expect((await runOne(badMapper, {})).content).toBe(
      '<tool_use_error>Error calling tool (Probe): cannot map</tool_use_error>',
    )
  })

  it('a permission deny is the bare message', async () => {
    const permissions: PermissionGate = {
      decide: async () => ({ behavior: 'deny', message: 'Permission to use Probe has been denied.' }),
    }
    const result = await runOne(tool(), {}, { permissions })
    expect(result).toEqual({
      type: 'tool_result',
      tool_use_id: 't1',
      content: 'Permission to use Probe has been denied.',
      is_error: true,
    })
  })

  it('empty output names the tool', async () => {
    expect((await runOne(tool(), { value: '' })).content).toBe('(Probe completed with no output)')
  })
})

describe('the three copies of the input', () => {
  it('never mutates the original, shows hooks and permissions the backfilled clone, and calls with the hook-updated input', async () => {
    const original = { value: 'from model' }
    const seenByGate: unknown[] = []
    const seenByHook: unknown[] = []
    let seenByCall: unknown
    const probe = tool({
      backfillObservableInput: (input) => {
        input.derived = 'backfilled'
      },
      call: async (input: Record<string, unknown>) => {
        seenByCall = { ...input }
        input.value = 'mutated by tool'
        return { data: 'ok' }
      },
    })
    const hooks: HookRunner = {
      preToolUse: async (_tool, input) => {
        seenByHook.push(structuredClone(input))
        return { updatedInput: { value: 'from hook' } }
      },
      postToolUse: async () => ({}),
      postToolUseFailure: async () => ({}),
    }
    const permissions: PermissionGate = {
      decide: async (request) => {
        seenByGate.push(structuredClone(request.input))
        return { behavior: 'allow' }
      },
    }
    await runOne(probe, original, { hooks, permissions })
    expect(original).toEqual({ value: 'from model' })
    expect(seenByHook).toEqual([{ value: 'from model', derived: 'backfilled' }])
    expect(seenByGate).toEqual([{ value: 'from hook', derived: 'backfilled' }])
    expect(seenByCall).toEqual({ value: 'from hook' })
  })

  it('strips internal-only fields even when the schema lets them through', async () => {
    let seen: unknown
    const loose = tool({
      inputSchema: z.looseObject({ command: z.string() }),
      internalInputKeys: ['_simulatedSedEdit'],
      call: async (input: Record<string, unknown>) => {
        seen = input
        return { data: 'ok' }
      },
    })
    await runOne(loose, { command: 'ls', _simulatedSedEdit: { file: '/etc/passwd' } })
    expect(seen).toEqual({ command: 'ls' })
  })

  it('re-validates input rewritten by a hook', async () => {
    const hooks: HookRunner = {
      preToolUse: async () => ({ updatedInput: { value: 42 } }),
      postToolUse: async () => ({}),
      postToolUseFailure: async () => ({}),
    }
    const result = await runOne(tool(), {}, { hooks })
    expect(result.content).toBe(
      '<tool_use_error>InputValidationError: Probe failed due to the following issue:\nThe parameter `value` type is expected as `string` but provided as `number`</tool_use_error>',
    )
  })

  it('a PostToolUse hook that blocks adds its reason to the result the model sees', async () => {
    const hooks: HookRunner = {
      preToolUse: async () => ({}),
      postToolUse: async () => ({ blockingReason: 'output contains a secret' }),
      postToolUseFailure: async () => ({}),
    }
    expect((await runOne(tool(), { value: 'done' }, { hooks })).content).toBe(
      'done\n\nPostToolUse hook feedback: output contains a secret',
    )
  })

  it('a hook that blocks stops the call with its reason', async () => {
    const hooks: HookRunner = {
      preToolUse: async () => ({ blockingReason: 'no deploys on Fridays' }),
      postToolUse: async () => ({}),
      postToolUseFailure: async () => ({}),
    }
    expect((await runOne(tool(), {}, { hooks })).content).toBe('Blocked by PreToolUse hook: no deploys on Fridays')
  })
})
