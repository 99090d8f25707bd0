// Pins TodoWrite: the list is replaced through a context modifier, never mutated in place.
import { describe, expect, it } from 'vitest'
import { decidePermission } from '../../../src/permissions/decide-permission.js'
import { TodoWriteTool } from '../../../src/tools/todo-write/todo-write-tool.js'
import { createTestContext } from '../../helpers/tool-context.js'
import { okData, runTool } from '../helpers.js'

describe('TodoWrite', () => {
  it('replaces the session todo list through its context modifier and confirms briefly', async () => {
    const context = createTestContext({ cwd: '/tmp', blobRoot: '/tmp/toolexec-todo-blobs' })
    const todos = [
      { content: 'Run the tests', status: 'in_progress', activeForm: 'Running the tests' },
      { content: 'Fix the bug', status: 'completed' },
    ]
    const result = await runTool(TodoWriteTool, { todos }, context)
    if (!result.ok) throw new Error(result.message)
    const { context: next } = result
    const data = okData(result)
    expect(next.todos).toEqual(todos)
    expect(context.todos).toEqual([])
    expect(TodoWriteTool.mapToolResult(data).content).toContain('Todos have been updated (2 items, 1 completed)')
    const cleared = await runTool(TodoWriteTool, { todos: [] }, next)
    expect(cleared.ok && cleared.context.todos).toEqual([])
  })

  it('rejects unknown statuses and extra keys', () => {
    expect(TodoWriteTool.inputSchema.safeParse({ todos: [{ content: 'x', status: 'done' }] }).success).toBe(false)
    expect(TodoWriteTool.inputSchema.safeParse({ todos: [{ content: 'x', status: 'pending', id: 1 }] }).success).toBe(
      false,
    )
  })

  it('is allowed without a rule or a prompt, since it only changes the session', async () => {
    const context = createTestContext({ cwd: '/tmp', blobRoot: '/tmp/toolexec-todo-blobs' })
    const input = { todos: [{ content: 'x', status: 'pending' }] }
    expect(await decidePermission({ tool: TodoWriteTool, input, context })).toMatchObject({ behavior: 'allow' })
  })
})
