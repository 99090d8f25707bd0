import { expect } from 'vitest'
import { z } from 'zod'
import type { RunEventBody } from '../../src/events/run-event.js'
import { createRunExecutor } from '../../src/executor/run-executor.js'
import type { RunExecutorOptions, RunOutcome } from '../../src/executor/run-executor-types.js'
import type { RunOptions } from '../../src/executor/run-options.js'
import { sinkOf } from '../../src/executor/run-sink.js'
import type { SessionContext } from '../../src/executor/session-context.js'
import type { ToolUseBlock } from '../../src/messages/content-blocks.js'
import { buildTool } from '../../src/tool/build-tool.js'
import type { AnyTool, ToolUseContext } from '../../src/tool/tool.js'
import { createGates } from '../helpers/gates.js'
import { createTestContext, useTestWorkspace } from '../helpers/tool-context.js'

/** A session on a fresh workspace, removed when the test finishes. */
export async function makeSession(): Promise<SessionContext> {
  const workspace = await useTestWorkspace()
  return createTestContext({ cwd: workspace.cwd, blobRoot: workspace.blobRoot, tenant: 'default' })
}

/**
 * Tools whose every call waits until the test releases it by tool_use id (test/helpers/gates.ts).
 * `safe` in the input decides concurrency; `output` replaces the released text.
 */
export function createGateTools() {
  const gates = createGates()
  const make = (name: string, extra: Partial<AnyTool> = {}) =>
    buildTool({
      name,
      ruleFamily: 'none',
      inputSchema: z.strictObject({ safe: z.boolean().optional(), output: z.string().optional() }),
      maxResultSizeChars: 30_000,
      description: async () => `${name} test tool`,
      prompt: async () => `${name} test tool`,
      isConcurrencySafe: (input: { safe?: boolean }) => input.safe === true,
      isReadOnly: (input: { safe?: boolean }) => input.safe === true,
      async call(input, context: ToolUseContext) {
        const text = await gates.pass(context.toolUseId, context.abortSignal)
        return { data: input.output ?? text }
      },
      ...extra,
    }) as AnyTool
  return {
    make,
    release: (id: string, text = `done ${id}`) => gates.open(id, text),
    fail: gates.fail,
    started: gates.started,
    running: gates.running,
    maxRunning: gates.maxRunning,
  }
}

export const block = (id: string, name: string, input: unknown = {}): ToolUseBlock => ({
  type: 'tool_use',
  id,
  name,
  input,
})

export const DEFAULT_OPTIONS: RunOptions = { maxConcurrency: 10, cancelOnError: 'bash', maxResultChars: 200_000 }

export type StartedRun = {
  executor: ReturnType<typeof createRunExecutor>
  events: RunEventBody[]
  /** Resolves with the outcome after checking every block got exactly one result, in order. */
  done: () => Promise<RunOutcome>
  eventsOf: <T extends RunEventBody['type']>(type: T) => Extract<RunEventBody, { type: T }>[]
}

export async function startRun(
  tools: AnyTool[],
  blocks: ToolUseBlock[],
  overrides: Partial<RunOptions> = {},
  extra: Partial<RunExecutorOptions> = {},
): Promise<StartedRun> {
  const events: RunEventBody[] = []
  const executor = createRunExecutor({
    runId: 'run_test',
    tools,
    context: await makeSession(),
    parentMessage: { role: 'assistant', content: blocks },
    options: { ...DEFAULT_OPTIONS, ...overrides },
    sink: sinkOf((event) => events.push(event)),
    ...extra,
  })
  for (const b of blocks) executor.addToolUse(b)
  executor.endInput()
  const eventsOf = <T extends RunEventBody['type']>(type: T) =>
    events.filter((event): event is Extract<RunEventBody, { type: T }> => event.type === type)
  return {
    executor,
    events,
    eventsOf,
    done: async () => {
      const outcome = await executor.finished
      expectOneResultPerBlock(outcome, blocks)
      expect(eventsOf('tool.result').map((event) => event.tool_use_id)).toEqual(blocks.map((b) => b.id))
      return outcome
    },
  }
}

export function expectOneResultPerBlock(outcome: RunOutcome, blocks: ToolUseBlock[]): void {
  expect(outcome.results.map((result) => result.tool_use_id)).toEqual(blocks.map((b) => b.id))
}

/** Lets queued microtasks and promise callbacks run (no timers involved). */
export async function flush(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((resolve) => setImmediate(resolve))
}

export const contentOf = (outcome: RunOutcome, id: string) =>
  outcome.results.find((result) => result.tool_use_id === id)?.content
