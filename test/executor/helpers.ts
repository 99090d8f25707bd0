import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'vitest'
import { z } from 'zod'
import type { RunEventBody } from '../../src/events/run-event.js'
import { createRunExecutor } from '../../src/executor/run-executor.js'
import type { RunExecutorOptions, RunOutcome } from '../../src/executor/run-executor-types.js'
import type { RunOptions } from '../../src/executor/run-options.js'
import type { SessionContext } from '../../src/executor/session-context.js'
import type { ToolUseBlock } from '../../src/messages/content-blocks.js'
import { createFileBlobStore } from '../../src/results/file-blob-store.js'
import { buildTool } from '../../src/tool/build-tool.js'
import { createPermissionContext } from '../../src/tool/permission-context.js'
import type { AnyTool, ToolUseContext } from '../../src/tool/tool.js'

export type Deferred<T = void> = { promise: Promise<T>; resolve: (value: T) => void; reject: (error: unknown) => void }

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void
  let reject!: (error: unknown) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

export async function makeSession(): Promise<SessionContext> {
  const root = await mkdtemp(join(tmpdir(), 'toolexec-exec-'))
  return {
    tenant: 'default',
    sessionId: 'session-1',
    cwd: root,
    permissionContext: createPermissionContext(),
    readFileState: new Map(),
    todos: [],
    blobs: createFileBlobStore({ root: join(root, 'blobs'), ttlMs: 60_000 }),
    environment: {
      sandbox: 'off',
      multiTenant: false,
      blobDirectory: join(root, 'blobs', 'default'),
      workspaceRoot: root,
    },
  }
}

/**
 * A tool whose every call waits until the test releases it by tool_use id, recording how many
 * calls of the whole set execute at once. `safe` decides concurrency from the input.
 */
export function createGateTools() {
  const gates = new Map<string, Deferred<string>>()
  const started: string[] = []
  let running = 0
  let maxRunning = 0
  const gate = (id: string) => {
    if (!gates.has(id)) gates.set(id, deferred<string>())
    return gates.get(id)!
  }
  const make = (name: string, extra: Partial<AnyTool> = {}) =>
    buildTool({
      name,
      inputSchema: z.strictObject({ safe: z.boolean().optional(), output: z.string().optional() }),
      maxResultSizeChars: 30_000,
      description: async () => `${name} test tool`,
      prompt: async () => `${name} test tool`,
      isConcurrencySafe: (input: { safe?: boolean }) => input.safe === true,
      isReadOnly: (input: { safe?: boolean }) => input.safe === true,
      async call(input, context: ToolUseContext) {
        started.push(context.toolUseId)
        running++
        maxRunning = Math.max(maxRunning, running)
        try {
          const text = await Promise.race([
            gate(context.toolUseId).promise,
            new Promise<never>((_, reject) =>
              context.abortSignal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
            ),
          ])
          return { data: input.output ?? text }
        } finally {
          running--
        }
      },
      ...extra,
    }) as AnyTool
  return {
    make,
    release: (id: string, text = `done ${id}`) => gate(id).resolve(text),
    fail: (id: string, error: unknown) => gate(id).reject(error),
    started,
    running: () => running,
    maxRunning: () => maxRunning,
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
    emit: (event) => events.push(event),
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
