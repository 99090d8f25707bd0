import { z } from 'zod'
import { buildTool } from '../../tool/build-tool.js'
import type { Todo } from '../../tool/tool.js'

const TODO_WRITE_TOOL_NAME = 'TodoWrite'

const TodoSchema = z.strictObject({
  content: z.string().min(1).describe('What to do, in the imperative ("Run the tests")'),
  status: z.enum(['pending', 'in_progress', 'completed']).describe('pending, in_progress (one at a time) or completed'),
  activeForm: z.string().min(1).optional().describe('The same task in the present continuous ("Running the tests")'),
})

const TodoWriteInputSchema = z.strictObject({
  todos: z.array(TodoSchema).describe('The complete, updated todo list: it replaces the previous one'),
})
export type TodoWriteInput = z.infer<typeof TodoWriteInputSchema>

export type TodoWriteOutput = { oldTodos: readonly Todo[]; newTodos: Todo[] }

const PROMPT = `Creates and updates the task list of this session, to plan multi-step work and show progress.

- Send the whole list every time: it replaces the previous one.
- Each item has content (imperative), status (pending, in_progress, completed) and optionally activeForm (present continuous).
- Keep exactly one task in_progress while working; mark a task completed as soon as it is done, not in batches.
- Use it for work with three or more steps or when given several tasks; skip it for a single trivial step.`

export const TodoWriteTool = buildTool({
  name: TODO_WRITE_TOOL_NAME,
  ruleFamily: 'none',
  searchHint: 'manage the session task list',
  inputSchema: TodoWriteInputSchema,
  maxResultSizeChars: 100_000,
  description: 'Update the todo list',
  prompt: PROMPT,
  // It only replaces the session's own list: nothing outside the session changes, so no prompt.
  async checkPermissions(input: TodoWriteInput) {
    return { behavior: 'allow' as const, updatedInput: input }
  },
  async call(input: TodoWriteInput, context) {
    const newTodos: Todo[] = input.todos.map((todo) => ({ ...todo }))
    const data: TodoWriteOutput = { oldTodos: context.todos, newTodos }
    return { data, contextModifier: (current) => ({ ...current, todos: newTodos }) }
  },
  mapToolResult(data: TodoWriteOutput) {
    const done = data.newTodos.filter((todo) => todo.status === 'completed').length
    return {
      content: `Todos have been updated (${data.newTodos.length} items, ${done} completed). Keep using the todo list to track your progress and proceed with the current task.`,
    }
  },
})
