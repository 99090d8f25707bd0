// Pins the scheduling rules of docs/design.md §6: partition and barrier, the cap, block-order results,
// progress before results, and when context modifiers apply.
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { buildTool } from '../../src/tool/build-tool.js'
import type { AnyTool, ToolUseContext } from '../../src/tool/tool.js'
import { block, createGateTools, flush, startRun } from './helpers.js'

const safe = { safe: true }

describe('partition and barrier', () => {
  it('runs consecutive safe calls together and an unsafe call alone, as a barrier for what follows', async () => {
    const gates = createGateTools()
    const tool = gates.make('Gate')
    const blocks = [
      block('s1', 'Gate', safe),
      block('s2', 'Gate', safe),
      block('u3', 'Gate', {}),
      block('s4', 'Gate', safe),
      block('s5', 'Gate', safe),
    ]
    const run = await startRun([tool], blocks)
    await flush()
    expect(gates.started).toEqual(['s1', 's2'])

    gates.release('s1')
    await flush()
    expect(gates.started).toEqual(['s1', 's2']) // u3 waits for s2; s4 waits behind u3

    gates.release('s2')
    await flush()
    expect(gates.started).toEqual(['s1', 's2', 'u3'])
    expect(gates.running()).toBe(1)

    gates.release('u3')
    await flush()
    expect(gates.started).toEqual(['s1', 's2', 'u3', 's4', 's5'])
    gates.release('s4')
    gates.release('s5')
    const outcome = await run.done()
    expect(outcome.status).toBe('completed')
    expect(run.eventsOf('tool.queued').map((event) => event.concurrency_safe)).toEqual([true, true, false, true, true])
  })

  it('treats a throwing isConcurrencySafe, unknown tools and invalid inputs as unsafe', async () => {
    const gates = createGateTools()
    const throwing = gates.make('Throwing', {
      isConcurrencySafe: () => {
        throw new Error('cannot tell')
      },
    })
    const run = await startRun(
      [gates.make('Gate'), throwing],
      [block('a', 'Throwing', safe), block('b', 'Nope'), block('c', 'Gate', { safe: 'yes' })],
    )
    await flush()
    expect(run.eventsOf('tool.queued').map((event) => event.concurrency_safe)).toEqual([false, false, false])
    // Unknown and invalid calls get their results at once, without waiting for `a`.
    expect(run.eventsOf('tool.completed').map((event) => event.tool_use_id)).toEqual(['b', 'c'])
    gates.release('a')
    await run.done()
  })
})

describe('concurrency cap', () => {
  it('never executes more than maxConcurrency calls at once', async () => {
    const gates = createGateTools()
    const blocks = Array.from({ length: 7 }, (_, i) => block(`c${i}`, 'Gate', safe))
    const run = await startRun([gates.make('Gate')], blocks, { maxConcurrency: 3 })
    await flush()
    expect(gates.running()).toBe(3)
    for (const b of blocks) {
      gates.release(b.id)
      await flush()
      expect(gates.running()).toBeLessThanOrEqual(3)
    }
    await run.done()
    expect(gates.maxRunning()).toBe(3)
  })
})

describe('ordering', () => {
  it('yields results in block order while completions happen in another order', async () => {
    const gates = createGateTools()
    const blocks = ['a', 'b', 'c'].map((id) => block(id, 'Gate', safe))
    const run = await startRun([gates.make('Gate')], blocks)
    await flush()
    gates.release('c')
    gates.release('b')
    await flush()
    expect(run.eventsOf('tool.result')).toHaveLength(0)
    gates.release('a')
    const outcome = await run.done()
    expect(run.eventsOf('tool.completed').map((event) => event.tool_use_id)).toEqual(['c', 'b', 'a'])
    expect(outcome.results.map((result) => result.content)).toEqual(['done a', 'done b', 'done c'])
  })

  it('emits progress the moment it happens, before any result', async () => {
    const gates = createGateTools()
    const chatty = buildTool({
      name: 'Chatty',
      ruleFamily: 'none',
      inputSchema: z.strictObject({}),
      maxResultSizeChars: 1000,
      description: async () => 'chatty',
      prompt: async () => 'chatty',
      isConcurrencySafe: () => true,
      async call(_input, context: ToolUseContext, _canUse, _parent, onProgress) {
        onProgress?.({ step: 1 })
        await new Promise((resolve) => context.abortSignal.addEventListener('abort', resolve, { once: true }))
        return { data: 'never' }
      },
    })
    const run = await startRun([gates.make('Gate'), chatty], [block('first', 'Gate', safe), block('second', 'Chatty')])
    await flush()
    const types = run.events.map((event) => event.type)
    expect(types).toContain('tool.progress')
    expect(types).not.toContain('tool.result')
    expect(run.eventsOf('tool.progress')[0]).toEqual({
      type: 'tool.progress',
      tool_use_id: 'second',
      data: { step: 1 },
    })
    run.executor.cancel()
    await run.done()
  })
})

describe('context modifiers', () => {
  const todoTool = (gates: ReturnType<typeof createGateTools>, seen: Record<string, string[]>) =>
    buildTool({
      name: 'Todo',
      ruleFamily: 'none',
      inputSchema: z.strictObject({ item: z.string(), safe: z.boolean() }),
      maxResultSizeChars: 1000,
      description: async () => 'todo',
      prompt: async () => 'todo',
      isConcurrencySafe: (input: { safe: boolean }) => input.safe,
      async call(input, context: ToolUseContext) {
        seen[context.toolUseId] = context.todos.map((todo) => todo.content)
        await gates.make('x').call({}, context, async () => ({ behavior: 'allow' }), { role: 'assistant', content: [] })
        return {
          data: 'ok',
          contextModifier: (ctx: ToolUseContext) => ({
            ...ctx,
            todos: [...ctx.todos, { content: input.item, status: 'pending' as const }],
          }),
        }
      },
    }) as AnyTool

  it('applies a concurrent group’s modifiers after the group, in block order', async () => {
    const gates = createGateTools()
    const seen: Record<string, string[]> = {}
    const blocks = [
      block('p1', 'Todo', { item: 'one', safe: true }),
      block('p2', 'Todo', { item: 'two', safe: true }),
      block('s3', 'Todo', { item: 'three', safe: false }),
    ]
    const run = await startRun([todoTool(gates, seen)], blocks)
    await flush()
    gates.release('p2')
    await flush()
    gates.release('p1')
    await flush()
    expect(seen.s3).toEqual(['one', 'two'])
    gates.release('s3')
    const outcome = await run.done()
    expect(outcome.context.todos.map((todo) => todo.content)).toEqual(['one', 'two', 'three'])
    expect(seen.p2).toEqual([])
  })

  it('applies a serial call’s modifier before the next call starts, and ignores failed calls’ modifiers', async () => {
    const gates = createGateTools()
    const seen: Record<string, string[]> = {}
    const blocks = [
      block('a', 'Todo', { item: 'a', safe: false }),
      block('b', 'Todo', { item: 'b', safe: false }),
      block('c', 'Todo', { item: 'c', safe: false }),
    ]
    const run = await startRun([todoTool(gates, seen)], blocks)
    await flush()
    gates.release('a')
    await flush()
    expect(seen.b).toEqual(['a'])
    gates.fail('b', new Error('broken'))
    await flush()
    expect(seen.c).toEqual(['a'])
    gates.release('c')
    const outcome = await run.done()
    expect(outcome.context.todos.map((todo) => todo.content)).toEqual(['a', 'c'])
  })
})
