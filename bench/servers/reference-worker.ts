/**
 * The SDK's own EnvironmentWorker with its default agent toolset (bash, read, write, edit, glob, grep),
 * as a process of its own for bench/managed-agents.ts: polls the environment named by the environment
 * variables below until SIGTERM.
 *
 *   BENCH_MA_BASE_URL=… BENCH_MA_ENVIRONMENT=env_… BENCH_MA_KEY=… BENCH_MA_WORKDIR=/tmp/x \
 *     node --import tsx bench/servers/reference-worker.ts
 */
import Anthropic from '@anthropic-ai/sdk'

const required = (name: string) => {
  const value = process.env[name]
  if (value === undefined || value === '') throw new Error(`${name} must be set`)
  return value
}

const client = new Anthropic({ baseURL: required('BENCH_MA_BASE_URL'), apiKey: 'unused', logLevel: 'warn' })
const controller = new AbortController()
process.once('SIGTERM', () => controller.abort())
await client.beta.environments.work
  .worker({
    environmentId: required('BENCH_MA_ENVIRONMENT'),
    environmentKey: required('BENCH_MA_KEY'),
    workdir: required('BENCH_MA_WORKDIR'),
    // The double attaches no memory stores.
    memorySyncIntervalMs: null,
  })
  .run(controller.signal)
  .catch((error: unknown) => {
    if (!controller.signal.aborted) throw error
  })
