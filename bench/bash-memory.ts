/**
 * Bash memory benchmark: a command printing 1 GB must grow RSS by less than 64 MB.
 * Runs the real Bash tool with a real file blob store, samples this process's RSS while the
 * command runs, and prints the output size, the RSS growth and their ratio.
 *
 *   npx tsx bench/bash-memory.ts [megabytes=1000]
 */
import { mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { createFileBlobStore } from '../src/results/file-blob-store.js'
import { createPermissionContext } from '../src/tool/permission-context.js'
import type { ToolUseContext } from '../src/tool/tool.js'
import { BashTool } from '../src/tools/bash/bash-tool.js'
import { emitFigures } from './lib/report.js'

const megabytes = Number(process.argv[2] ?? 1000)
const bytes = megabytes * 1_000_000
const root = await mkdtemp(path.join(os.tmpdir(), 'toolexec-bash-memory-'))
const blobs = createFileBlobStore({ root: path.join(root, 'blobs'), ttlMs: 60_000 })
const context: ToolUseContext = {
  tenant: 'bench',
  sessionId: 'bench',
  runId: `bench-${Date.now()}`,
  toolUseId: 'toolu_bench',
  cwd: root,
  permissionContext: createPermissionContext(),
  abortSignal: new AbortController().signal,
  readFileState: new Map(),
  todos: [],
  tools: [],
  blobs,
  environment: { sandbox: 'off', multiTenant: false, blobDirectory: blobs.directory('bench'), workspaceRoot: root },
}

const mib = (value: number) => `${(value / 1024 / 1024).toFixed(1)} MiB`
global.gc?.()
const baseline = process.memoryUsage().rss
let peak = baseline
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss)
}, 20)
let progressEvents = 0
const started = Date.now()
try {
  const result = await BashTool.call(
    { command: `head -c ${bytes} /dev/zero | tr '\\0' a` },
    context,
    async () => ({ behavior: 'allow' }),
    { role: 'assistant', content: [] },
    () => {
      progressEvents += 1
    },
  )
  clearInterval(sampler)
  peak = Math.max(peak, process.memoryUsage().rss)
  const mapped = BashTool.mapToolResult(result.data)
  if (!mapped.blob) throw new Error('Expected the output to be persisted to a blob')
  const onDisk = (await stat(mapped.blob.path)).size
  if (onDisk !== bytes) throw new Error(`Blob holds ${onDisk} bytes, expected ${bytes}`)
  const growth = peak - baseline
  console.log(`output:        ${bytes} bytes (${mib(bytes)}), persisted: ${onDisk} bytes`)
  console.log(`duration:      ${Date.now() - started} ms, progress events: ${progressEvents}`)
  console.log(`rss baseline:  ${mib(baseline)}, peak: ${mib(peak)}`)
  console.log(`rss growth:    ${mib(growth)}`)
  console.log(`growth/output: ${(growth / bytes).toFixed(4)}`)
  console.log(`result starts: ${JSON.stringify(String(mapped.content).slice(0, 60))}`)
  emitFigures([
    {
      name: `Bash printing ${megabytes} MB: RSS growth`,
      unit: 'MB',
      value: Math.round((growth / 1024 / 1024) * 10) / 10,
      baselineName: 'output, MB',
      baseline: megabytes,
      goal: { atMost: 64 },
      met: growth < 64 * 1024 * 1024,
      details: { durationMs: Date.now() - started, progressEvents },
    },
  ])
} finally {
  clearInterval(sampler)
  await rm(root, { recursive: true, force: true })
}
