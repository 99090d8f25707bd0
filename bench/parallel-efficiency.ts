/**
 * Parallel efficiency of the scheduler: K concurrency-safe calls of 100 ms each under a cap of
 * C must finish within 1.05 × ceil(K/C) × 100 ms (the ideal is ceil(K/C) waves of 100 ms).
 * Engine only (createRunExecutor): the figure is about scheduling, not HTTP.
 *
 *   npx tsx bench/parallel-efficiency.ts [K=50] [C=10] [rounds=5]
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { createRunExecutor } from '../src/executor/run-executor.js'
import { sinkOf } from '../src/executor/run-sink.js'
import { createFileBlobStore } from '../src/results/file-blob-store.js'
import { buildTool } from '../src/tool/build-tool.js'
import { createPermissionContext } from '../src/tool/permission-context.js'
import { emitFigures } from './lib/report.js'

const calls = Number(process.argv[2] ?? 50)
const cap = Number(process.argv[3] ?? 10)
const rounds = Number(process.argv[4] ?? 5)
const CALL_MS = 100

const sleeper = buildTool({
  name: 'Sleep',
  ruleFamily: 'none',
  inputSchema: z.strictObject({}),
  maxResultSizeChars: 1000,
  description: async () => 'sleeps 100 ms',
  prompt: async () => 'sleeps 100 ms',
  isConcurrencySafe: () => true,
  isReadOnly: () => true,
  async call() {
    await sleep(CALL_MS)
    return { data: 'ok' }
  },
})

const root = await mkdtemp(join(tmpdir(), 'toolexec-bench-'))
const blocks = Array.from({ length: calls }, (_unused, index) => ({
  type: 'tool_use' as const,
  id: `toolu_${index}`,
  name: 'Sleep',
  input: {},
}))
const times: number[] = []
for (let round = 0; round < rounds; round++) {
  const started = performance.now()
  const executor = createRunExecutor({
    runId: `bench_${round}`,
    tools: [sleeper],
    context: {
      tenant: 'default',
      sessionId: 's',
      cwd: root,
      permissionContext: createPermissionContext(),
      readFileState: new Map(),
      todos: [],
      blobs: createFileBlobStore({ root, ttlMs: 60_000 }),
      environment: { sandbox: 'off', multiTenant: false, blobDirectory: root, workspaceRoot: root },
    },
    parentMessage: { role: 'assistant', content: blocks },
    options: { maxConcurrency: cap, cancelOnError: 'bash', maxResultChars: 200_000 },
    sink: sinkOf(() => {}),
  })
  for (const block of blocks) executor.addToolUse(block)
  executor.endInput()
  const outcome = await executor.finished
  if (outcome.results.length !== calls) throw new Error('the engine lost results')
  times.push(performance.now() - started)
}
await rm(root, { recursive: true, force: true })

const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] as number
const ideal = Math.ceil(calls / cap) * CALL_MS
emitFigures([
  {
    name: `parallel efficiency: ${calls} safe ${CALL_MS} ms calls under cap ${cap} (median of ${rounds})`,
    unit: 'ms',
    value: Math.round(median * 10) / 10,
    baselineName: 'ideal ceil(K/C) × 100 ms',
    baseline: ideal,
    ratio: Math.round((median / ideal) * 1000) / 1000,
    goal: { atMost: 1.05 },
    met: median <= 1.05 * ideal,
  },
])
