// Runs the SDK's own EnvironmentWorker (the reference worker) against a protocol double, in this process,
// and keeps its log lines so tests can name what it did (lease lost, stopping, …).
import Anthropic from '@anthropic-ai/sdk'
import type { BetaRunnableTool } from '@anthropic-ai/sdk/lib/tools/BetaRunnableTool'
import type { ManagedAgentsDouble } from './managed-agents-double.js'

export interface ReferenceWorker {
  /** `level message` of every log line the SDK wrote at info or above. */
  readonly logs: string[]
  /** Aborts the poll loop and waits for the worker to return. */
  stop(): Promise<void>
}

export interface ReferenceWorkerOptions {
  environment: { id: string; key: string }
  workdir: string
  /** Defaults to the SDK's agent toolset (bash, read, write, edit, glob, grep) in `workdir`. */
  tools?: BetaRunnableTool[]
  maxIdleMs?: number
  workerId?: string
}

export function startReferenceWorker(double: ManagedAgentsDouble, options: ReferenceWorkerOptions): ReferenceWorker {
  const logs: string[] = []
  const record =
    (level: string) =>
    (message: string, ...rest: unknown[]) => {
      logs.push(`${level} ${message}${rest.length > 0 ? ` ${JSON.stringify(rest)}` : ''}`)
    }
  const client = new Anthropic({
    baseURL: double.baseURL,
    apiKey: double.apiKey,
    logLevel: 'info',
    logger: { debug: () => {}, info: record('info'), warn: record('warn'), error: record('error') },
  })
  const controller = new AbortController()
  const worker = client.beta.environments.work.worker({
    environmentId: options.environment.id,
    environmentKey: options.environment.key,
    workdir: options.workdir,
    // No memory stores in the double: the worker neither downloads nor syncs any.
    memorySyncIntervalMs: null,
    ...(options.tools !== undefined ? { tools: options.tools } : {}),
    ...(options.maxIdleMs !== undefined ? { maxIdleMs: options.maxIdleMs } : {}),
    ...(options.workerId !== undefined ? { workerId: options.workerId } : {}),
  })
  const running = worker.run(controller.signal).catch((error: unknown) => {
    if (!controller.signal.aborted) logs.push(`error worker ended: ${String(error)}`)
  })
  return {
    logs,
    async stop() {
      controller.abort()
      await running
    },
  }
}
