import { z } from 'zod'
import { buildTool, deferToPermissionRules } from '../../src/tool/build-tool.js'
import { createGates } from './gates.js'

/**
 * Tools whose timing the test controls. `Gate` calls block until the test opens their key,
 * so cancel, progress and replay tests need no sleeps.
 */
export function createTestTools() {
  const gates = createGates()
  const executions = { echo: 0, gate: 0, touch: 0 }
  const touched: Array<Record<string, unknown>> = []

  const echo = buildTool({
    name: 'Echo',
    ruleFamily: 'none',
    inputSchema: z.strictObject({ text: z.string() }),
    maxResultSizeChars: 100_000,
    description: async () => 'Returns its text',
    prompt: async () => 'Returns its text',
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    call: async (input) => {
      executions.echo++
      return { data: input.text }
    },
  })

  const gate = buildTool({
    name: 'Gate',
    ruleFamily: 'none',
    inputSchema: z.strictObject({ key: z.string(), progress: z.string().optional() }),
    maxResultSizeChars: 100_000,
    description: async () => 'Waits until the test opens its key',
    prompt: async () => 'Waits until the test opens its key',
    isConcurrencySafe: () => true,
    isReadOnly: () => true,
    interruptBehavior: () => 'cancel' as const,
    call: async (input, context, _canUseTool, _parent, onProgress) => {
      executions.gate++
      if (input.progress !== undefined) onProgress?.({ text: input.progress })
      return { data: await gates.pass(input.key, context.abortSignal) }
    },
  })

  // Not read-only: with no rule it asks for permission (a wait:true run denies it at once).
  const touch = buildTool({
    name: 'Touch',
    ruleFamily: 'none',
    inputSchema: z.strictObject({ name: z.string() }),
    maxResultSizeChars: 100_000,
    // It stands for a tool that changes things: the rules, not the tool, decide (asks with no rule).
    checkPermissions: deferToPermissionRules,
    description: async () => 'Pretends to change something',
    prompt: async () => 'Pretends to change something',
    call: async (input) => {
      executions.touch++
      touched.push(input)
      return { data: `touched ${input.name}` }
    },
  })

  return {
    tools: [echo, gate, touch],
    touched,
    executions,
    /** Lets the Gate call waiting on `key` return `text`. */
    open: (key: string, text = `opened ${key}`) => gates.open(key, text),
    /** Resolves once a Gate call with `key` has started. */
    started: gates.whenStarted,
  }
}

export type TestTools = ReturnType<typeof createTestTools>

/** Not read-only and without a rule: every call asks (the approval and polling tests' tool). */
export const askingTool = buildTool({
  name: 'Ask',
  ruleFamily: 'none',
  inputSchema: z.strictObject({ name: z.string() }),
  maxResultSizeChars: 100_000,
  description: async () => 'Changes something after approval',
  prompt: async () => 'Changes something after approval',
  checkPermissions: deferToPermissionRules,
  call: async (input) => ({ data: `changed ${input.name}` }),
})
